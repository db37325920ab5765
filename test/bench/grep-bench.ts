import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyTool, ToolContext } from '../../executor/define-tool.js';
import { findRipgrep } from '../../executor/fs/ripgrep.js';
import { PathGuard } from '../../executor/path-guard.js';
import { globTool } from '../../executor/tools/glob.js';
import { grepTool } from '../../executor/tools/grep.js';
import { projectRoot } from '../../harness/project-paths.js';
import { testPolicy } from '../support/policies.js';
import { median, round } from './stats.js';

const ROUNDS = 5;
/** Runs a program and collects its stdout. stdin is /dev/null: ripgrep with a pipe there and no path searches stdin. */
function run(file: string, args: string[], options: { cwd?: string } = {}): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve({ stdout: Buffer.concat(chunks).toString('utf8') })
        : reject(new Error(`${file} exited ${code}`)),
    );
  });
}

interface Case {
  name: string;
  tool: AnyTool;
  input: Record<string, unknown>;
  /** The same search done by `rg` itself. */
  rg: string[];
  /** Lines of rg's output that correspond to one result of the tool. */
  count: (stdout: string) => number;
}

const lines = (stdout: string): number => stdout.split('\n').filter(Boolean).length;
const CASES: Case[] = [
  {
    name: 'grep_files',
    tool: grepTool,
    input: { pattern: 'function', max_results: 10_000 },
    rg: ['-l', 'function'],
    count: lines,
  },
  {
    name: 'grep_content',
    tool: grepTool,
    input: { pattern: 'deprecated', output_mode: 'content', max_results: 10_000 },
    rg: ['-n', 'deprecated'],
    count: lines,
  },
  {
    name: 'grep_count',
    tool: grepTool,
    input: { pattern: 'function', output_mode: 'count', max_results: 10_000 },
    rg: ['-c', 'function'],
    count: lines,
  },
  {
    name: 'glob',
    tool: globTool,
    input: { pattern: '**/*.ts' },
    rg: ['--files', '-g', '*.ts'],
    count: lines,
  },
];

/**
 * grep and glob on a tree of ≥ 15k files (two hard-linked copies of the checkout's
 * node_modules), in-process through the tools, against `rg` itself doing the same search
 * (dotfiles included, as the tools do), alternating, warm cache. The tools' result counts are
 * printed next to ripgrep's: the ratio means something only if they agree.
 */
export async function benchGrep(): Promise<Record<string, number | string>> {
  const rg = findRipgrep();
  if (!rg) return { grep_note: 'rg not installed: grep and glob search in JavaScript; no ripgrep baseline' };
  const tree = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-grep-bench-')));
  try {
    for (const copy of ['a', 'b']) {
      await run('cp', ['-al', path.join(projectRoot(), 'node_modules'), path.join(tree, copy)]);
    }
    const policy = testPolicy(tree);
    const ctx = (ripgrep: string | undefined): ToolContext => ({
      callId: 'bench',
      workspace: tree,
      policy,
      signal: new AbortController().signal,
      paths: new PathGuard(policy),
      emit() {},
      commandWrapper: [],
      ripgrep,
    });
    const figures: Record<string, number> = {
      grep_tree_files: lines((await run(rg, ['--files', '--hidden'], { cwd: tree })).stdout),
    };
    for (const c of CASES) {
      const input = c.tool.input.parse(c.input);
      const ours: number[] = [];
      const theirs: number[] = [];
      let found = 0;
      let expected = 0;
      for (let i = 0; i <= ROUNDS; i++) {
        let start = performance.now();
        const result = await c.tool.run(input, ctx(rg));
        const elapsed = performance.now() - start;
        start = performance.now();
        const { stdout } = await run(rg, ['--hidden', '-g', '!.git', ...c.rg], { cwd: tree });
        const rgElapsed = performance.now() - start;
        if (i === 0) continue; // warms the page cache for both
        ours.push(elapsed);
        theirs.push(rgElapsed);
        found = result.display?.type === 'matches' ? result.display.matches : 0;
        if (c.name === 'grep_files' || c.name === 'grep_count') {
          found = result.display?.type === 'matches' ? result.display.files : 0;
        }
        expected = c.count(stdout);
      }
      figures[`${c.name}_ms`] = round(median(ours));
      figures[`rg_${c.name}_ms`] = round(median(theirs));
      figures[`${c.name}_vs_rg`] = round(median(ours) / median(theirs), 2);
      figures[`${c.name}_results`] = found;
      figures[`rg_${c.name}_results`] = expected;
    }
    // The fallback, for machines without rg: the JavaScript search on the same tree, once.
    const start = performance.now();
    await grepTool.run(grepTool.input.parse(CASES[0]!.input), ctx(undefined));
    figures.grep_files_javascript_ms = round(performance.now() - start);
    return figures;
  } finally {
    await rm(tree, { recursive: true, force: true });
  }
}
