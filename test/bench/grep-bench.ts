import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyTool, ToolContext } from '../../executor/define-tool.js';
import { findRipgrep, nameFilter, walkFlags } from '../../executor/fs/ripgrep.js';
import { PathGuard } from '../../executor/path-guard.js';
import { globTool } from '../../executor/tools/glob.js';
import { grepTool, MAX_FILE_BYTES } from '../../executor/tools/grep.js';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { formatPolicyProblem, loadPolicy } from '../../harness/policy/load-policy.js';
import { projectRoot } from '../../harness/project-paths.js';
import { confineWrapper } from '../../harness/sandbox/executor-launch.js';
import { kernelLauncher } from '../../harness/sandbox/kernel-launcher.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ToolDisplay } from '../../shared/tool.js';
import { median, round } from './stats.js';

const ROUNDS = 5;
/** Files per copy of the tree: enough to time, few enough that no search stops at max_results. */
const FILES_PER_COPY = 7_500;

/**
 * The checkout's packages in name order until FILES_PER_COPY files: the same tree for the same
 * lockfile, and one that does not grow with every dependency added (a search stopped at
 * max_results would be timed against an rg that did all the work).
 */
async function treePackages(): Promise<string[]> {
  const modules = path.join(projectRoot(), 'node_modules');
  const chosen: string[] = [];
  let total = 0;
  for (const name of (await readdir(modules)).filter((n) => !n.startsWith('.')).sort()) {
    if (total >= FILES_PER_COPY) break;
    const dir = path.join(modules, name);
    total += (await readdir(dir, { recursive: true }).catch(() => [])).length;
    chosen.push(dir);
  }
  return chosen;
}
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
  /** The same search done by `rg` itself: the tool's own walk flags, rg's usual output format. */
  rg: string[];
  /** The tool's result count, and the same count read from rg's output. */
  found: (display: ToolDisplay | undefined) => number;
  expected: (stdout: string) => number;
}

const lines = (stdout: string): number => stdout.split('\n').filter(Boolean).length;
const files = (display: ToolDisplay | undefined): number => (display?.type === 'matches' ? display.files : 0);
const matches = (display: ToolDisplay | undefined): number =>
  display?.type === 'matches' ? display.matches : 0;
/** What the grep tool asks of ripgrep besides the output format (see ripgrep-grep.ts). */
const GREP_FLAGS = [...walkFlags(true), `--max-filesize=${MAX_FILE_BYTES}`, '--case-sensitive'];
// Patterns with fewer results than max_results, so the tool and rg return the same set.
const CASES: Case[] = [
  {
    name: 'grep_files',
    tool: grepTool,
    input: { pattern: 'require', max_results: 10_000 },
    rg: [...GREP_FLAGS, '-l', 'require'],
    found: files,
    expected: lines,
  },
  {
    name: 'grep_content',
    tool: grepTool,
    input: { pattern: 'deprecated', output_mode: 'content', max_results: 10_000 },
    rg: [...GREP_FLAGS, '-n', 'deprecated'],
    found: matches,
    expected: lines,
  },
  {
    name: 'grep_count',
    tool: grepTool,
    input: { pattern: 'require', output_mode: 'count', max_results: 10_000 },
    rg: [...GREP_FLAGS, '-c', 'require'],
    // Matching lines summed over files: rg prints one `path:count` line per file.
    found: matches,
    expected: (stdout) =>
      stdout.split('\n').reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(':') + 1) || 0), 0),
  },
  {
    name: 'glob',
    tool: globTool,
    input: { pattern: '**/*.ts' },
    // The tool narrows rg to a file type (`nameFilter`); `-g '*.ts'` would also list gitignored ones.
    rg: ['--files', ...walkFlags(true), ...nameFilter('**/*.ts')],
    found: files,
    expected: lines,
  },
];

/**
 * grep and glob on a tree of ~15k files (two hard-linked copies of the checkout's first
 * packages by name, `treePackages`), in-process through the tools, against `rg` itself doing the same search with
 * the same flags, alternating, warm cache. The policy is the built-in `execute` one (its deny
 * globs are checked on every path found; one PathGuard, as in an executor). The tools' result
 * counts are printed next to ripgrep's: the ratio means something only if they agree.
 * `grep_files_confined` and `glob_confined` are the same searches with rg run under skate-confine
 * (Landlock), as the executor runs it, against plain rg: the sandbox's share.
 */
export async function benchGrep(): Promise<Record<string, number | string>> {
  const rg = findRipgrep();
  if (!rg) return { grep_note: 'rg not installed: grep and glob search in JavaScript; no ripgrep baseline' };
  const tree = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-grep-bench-')));
  try {
    const packages = await treePackages();
    for (const copy of ['a', 'b']) {
      await mkdir(path.join(tree, copy));
      await run('cp', ['-al', ...packages, path.join(tree, copy)]);
    }
    const loaded = await loadPolicy('execute', { workspace: tree });
    if (!loaded.ok) throw new Error(formatPolicyProblem(loaded.problem));
    const policy = loaded.policy;
    // One PathGuard (its deny globs compiled once), as an executor has.
    const paths = new PathGuard(policy);
    const ctx = (ripgrep: string | undefined, commandWrapper: readonly string[] = []): ToolContext => ({
      callId: 'bench',
      workspace: tree,
      policy,
      signal: new AbortController().signal,
      paths,
      emit() {},
      commandWrapper,
      ripgrep,
    });
    const figures: Record<string, number> = {
      grep_tree_files: lines((await run(rg, ['--files', '--hidden'], { cwd: tree })).stdout),
    };
    const confined: Case[] = [
      { ...CASES.find((c) => c.name === 'grep_files')!, name: 'grep_files_confined' },
      { ...CASES.find((c) => c.name === 'glob')!, name: 'glob_confined' },
    ];
    for (const c of [...CASES, ...confined]) {
      const input = c.tool.input.parse(c.input);
      const wrapper = confined.includes(c) ? confineWrapper() : [];
      const ours: number[] = [];
      const theirs: number[] = [];
      let found = 0;
      let expected = 0;
      for (let i = 0; i <= ROUNDS; i++) {
        let start = performance.now();
        const result = await c.tool.run(input, ctx(rg, wrapper));
        const elapsed = performance.now() - start;
        start = performance.now();
        const { stdout } = await run(rg, c.rg, { cwd: tree });
        const rgElapsed = performance.now() - start;
        if (i === 0) continue; // warms the page cache for both
        ours.push(elapsed);
        theirs.push(rgElapsed);
        found = c.found(result.display);
        expected = c.expected(stdout);
      }
      figures[`${c.name}_ms`] = round(median(ours));
      figures[`rg_${c.name}_ms`] = round(median(theirs));
      figures[`${c.name}_vs_rg`] = round(median(ours) / median(theirs), 2);
      figures[`${c.name}_results`] = found;
      figures[`rg_${c.name}_results`] = expected;
    }
    Object.assign(figures, await throughExecutor(policy, rg, tree));
    // The fallback, for machines without rg: the JavaScript search on the same tree, once.
    const start = performance.now();
    await grepTool.run(grepTool.input.parse(CASES[0]!.input), ctx(undefined));
    figures.grep_files_javascript_ms = round(performance.now() - start);
    return figures;
  } finally {
    await rm(tree, { recursive: true, force: true });
  }
}

/**
 * The same searches the way a user meets them: each a tool call from the harness over tRPC to a
 * running executor in the kernel sandbox (`execute` policy), against plain `rg` with the same flags
 * from the host, alternating; median and min–max of the ratio per round.
 */
async function throughExecutor(
  policy: ResolvedPolicy,
  rg: string,
  tree: string,
): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  if (!(await probeSandbox()).available) return figures;
  const client = await ExecutorClient.spawn({ policy, launcher: kernelLauncher({}) });
  try {
    for (const c of CASES) {
      const ours: number[] = [];
      const ratios: number[] = [];
      let found = 0;
      let expected = 0;
      for (let i = 0; i <= ROUNDS; i++) {
        let start = performance.now();
        const result = await client.callTool(c.tool.name, c.input);
        const elapsed = performance.now() - start;
        start = performance.now();
        const { stdout } = await run(rg, c.rg, { cwd: tree });
        const rgElapsed = performance.now() - start;
        if (i === 0) continue;
        ours.push(elapsed);
        ratios.push(elapsed / rgElapsed);
        found = c.found(result.display);
        expected = c.expected(stdout);
      }
      const name = `${c.name}_executor`;
      figures[`${name}_ms`] = round(median(ours));
      figures[`${name}_vs_rg`] = round(median(ratios), 2);
      figures[`${name}_vs_rg_min`] = round(Math.min(...ratios), 2);
      figures[`${name}_vs_rg_max`] = round(Math.max(...ratios), 2);
      figures[`${name}_results`] = found;
      figures[`rg_${name}_results`] = expected;
    }
  } finally {
    await client.shutdown();
  }
  return figures;
}
