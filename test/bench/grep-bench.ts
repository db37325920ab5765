import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { PathGuard } from '../../executor/path-guard.js';
import { grepTool } from '../../executor/tools/grep.js';
import { projectRoot } from '../../harness/project-paths.js';
import { testPolicy } from '../support/policies.js';
import { median, round } from './stats.js';

const ROUNDS = 5;
const run = promisify(execFile);

export interface GrepFigures {
  grep_tree_files: number;
  grep_files_ms: number;
  gnu_grep_files_ms: number;
  grep_vs_gnu_grep: number;
}

/**
 * The grep tool listing files that contain a common word across a large tree
 * (the checkout's node_modules, thousands of files), against GNU `grep -rlI`
 * on the same tree, alternating, warm cache.
 */
export async function benchGrep(): Promise<GrepFigures> {
  const tree = path.join(projectRoot(), 'node_modules');
  const policy = testPolicy(tree);
  const ctx = {
    callId: 'bench',
    workspace: tree,
    policy,
    signal: new AbortController().signal,
    paths: new PathGuard(policy),
    emit() {},
    commandWrapper: [],
  };
  const input = grepTool.input.parse({ pattern: 'function', max_results: 10_000, path: '.' });
  const ours: number[] = [];
  const gnu: number[] = [];
  let files = 0;
  for (let i = 0; i <= ROUNDS; i++) {
    let start = performance.now();
    const result = await grepTool.run(input, ctx);
    const elapsed = performance.now() - start;
    start = performance.now();
    await run('grep', ['-rlI', '--exclude-dir=.git', 'function', '.'], {
      cwd: tree,
      maxBuffer: 64 * 1024 * 1024,
    });
    const gnuElapsed = performance.now() - start;
    if (i === 0) continue; // warms the page cache for both
    ours.push(elapsed);
    gnu.push(gnuElapsed);
    files = result.display?.type === 'matches' ? result.display.files : 0;
  }
  return {
    grep_tree_files: files,
    grep_files_ms: round(median(ours)),
    gnu_grep_files_ms: round(median(gnu)),
    grep_vs_gnu_grep: round(median(ours) / median(gnu), 2),
  };
}
