import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runGit } from './private-git.js';

/** One region both sides changed: where it starts in the merged text, and each side's lines. */
export interface ConflictHunk {
  line: number;
  workspace: string;
  agent: string;
}

export type MergeOutcome = { clean: true; text: string } | { clean: false; hunks: ConflictHunk[] };

const SNIPPET_LINES = 8;

/**
 * `git merge-file` of three texts (the workspace's now, the base the child started from, the
 * child's), run on private temporary files outside every workspace: only data is merged. A
 * conflict is reported by hunk and nothing of the markers is returned to be written.
 */
export async function mergeThreeWay(workspace: string, base: string, agent: string): Promise<MergeOutcome> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skate-merge-'));
  try {
    const files = ['workspace', 'base', 'agent'].map((name) => path.join(dir, name));
    await Promise.all([workspace, base, agent].map((text, i) => writeFile(files[i] as string, text)));
    const run = await runGit(['merge-file', '-p', '-L', 'workspace', '-L', 'base', '-L', 'agent', ...files], {
      expectZero: false,
    });
    if (run.code < 0 || run.code > 127) throw new Error(`git merge-file failed: ${run.stderr.trim()}`);
    const text = run.stdout.toString('utf8');
    if (run.code === 0) return { clean: true, text };
    return { clean: false, hunks: conflictHunks(text) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function conflictHunks(merged: string): ConflictHunk[] {
  const hunks: ConflictHunk[] = [];
  let line = 0;
  let side: 'none' | 'workspace' | 'agent' = 'none';
  let current: { line: number; workspace: string[]; agent: string[] } | undefined;
  const snippet = (lines: string[]): string =>
    lines.length > SNIPPET_LINES
      ? [...lines.slice(0, SNIPPET_LINES), `… (${lines.length - SNIPPET_LINES} more lines)`].join('\n')
      : lines.join('\n');
  for (const text of merged.split('\n')) {
    if (side === 'none' && text.startsWith('<<<<<<< workspace')) {
      side = 'workspace';
      current = { line: line + 1, workspace: [], agent: [] };
    } else if (side === 'workspace' && text === '=======') {
      side = 'agent';
    } else if (side === 'agent' && text.startsWith('>>>>>>> agent') && current) {
      hunks.push({
        line: current.line,
        workspace: snippet(current.workspace),
        agent: snippet(current.agent),
      });
      line += current.workspace.length;
      side = 'none';
      current = undefined;
    } else if (current && side !== 'none') {
      current[side].push(text);
    } else {
      line++;
    }
  }
  return hunks;
}
