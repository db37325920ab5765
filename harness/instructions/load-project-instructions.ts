import { lstat, open, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { isWithin } from '../../shared/path-within.js';

/** One instructions file that was loaded. */
export interface InstructionsFile {
  path: string;
  bytes: number;
  /** Cut at the per-file or total bound. */
  truncated: boolean;
}

export interface ProjectInstructions {
  /** The system prompt section, or undefined when no file was found. */
  text: string | undefined;
  /** In the order they appear in `text`. */
  files: InstructionsFile[];
}

export interface LoadInstructionsOptions {
  /** The workspace, a real path. */
  workspace: string;
  home?: string;
  /** Bytes read from one file. Default 32 KiB. */
  maxFileBytes?: number;
  /** Bytes read from all files together. Default 96 KiB. */
  maxTotalBytes?: number;
}

const NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;

/**
 * The project's instructions for the model: `~/.skate/AGENTS.md`, then `AGENTS.md` (or, where a
 * directory has none, `CLAUDE.md`) in each directory from the repository root down to the
 * workspace (only the workspace's own when it is in no repository). General before specific, and
 * always in the same order, so the system prompt, and the prompt cache, stay the same from run to
 * run. Read in the harness on the host like the system prompt itself, so each file is bounded, and
 * a symlink is followed only when it stays inside the directory tree being searched (a repository
 * cannot point its `AGENTS.md` at `~/.ssh/id_ed25519`).
 */
export async function loadProjectInstructions(
  options: LoadInstructionsOptions,
): Promise<ProjectInstructions> {
  const home = options.home ?? homedir();
  const maxFile = options.maxFileBytes ?? 32 * 1024;
  let budget = options.maxTotalBytes ?? 96 * 1024;
  const root = (await repositoryRoot(options.workspace)) ?? options.workspace;
  const userDir = await realpath(path.join(home, '.skate')).catch(() => path.join(home, '.skate'));
  const candidates: { dir: string; within: string }[] = [{ dir: userDir, within: userDir }];
  for (const dir of directoriesDown(root, options.workspace)) candidates.push({ dir, within: root });

  const seen = new Set<string>();
  const sections: string[] = [];
  const files: InstructionsFile[] = [];
  for (const { dir, within } of candidates) {
    const file = await firstInstructionsFile(dir, within);
    if (!file || seen.has(file.real) || budget <= 0) continue;
    seen.add(file.real);
    const limit = Math.min(maxFile, budget);
    const { text, bytes, truncated } = await readBounded(file.path, limit);
    budget -= bytes;
    if (text.trim() === '') continue;
    files.push({ path: file.path, bytes, truncated });
    const shown = file.path.startsWith(`${home}${path.sep}`)
      ? `~/${path.relative(home, file.path)}`
      : file.path;
    sections.push(
      `## ${shown}\n${text.trimEnd()}${truncated ? `\n[… cut at ${bytes} bytes; read the file for the rest]` : ''}`,
    );
  }
  if (sections.length === 0) return { text: undefined, files };
  return {
    text: [
      '# Project instructions',
      'The user and the project keep these instructions for agents (AGENTS.md and CLAUDE.md files), from the most general to the most specific; where they disagree, the more specific one wins. Follow them unless the user says otherwise.',
      ...sections,
    ].join('\n\n'),
    files,
  };
}

/** The nearest directory at or above `dir` holding `.git` (a directory or, in a worktree, a file). */
async function repositoryRoot(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    if (await stat(path.join(current, '.git')).catch(() => undefined)) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/** `root`, then each directory below it down to `leaf` (which is inside `root`). */
function directoriesDown(root: string, leaf: string): string[] {
  const dirs: string[] = [];
  for (let current = leaf; ; current = path.dirname(current)) {
    dirs.unshift(current);
    if (current === root || path.dirname(current) === current) return dirs;
  }
}

/** `AGENTS.md` or else `CLAUDE.md` in `dir`: a regular file, or a symlink to one inside `within`. */
async function firstInstructionsFile(
  dir: string,
  within: string,
): Promise<{ path: string; real: string } | undefined> {
  for (const name of NAMES) {
    const file = path.join(dir, name);
    const info = await lstat(file).catch(() => undefined);
    if (!info) continue;
    const real = await realpath(file).catch(() => undefined);
    if (!real || !isWithin(within, real)) continue;
    if (!(await stat(real).catch(() => undefined))?.isFile()) continue;
    return { path: file, real };
  }
  return undefined;
}

/** Reads at most `limit` bytes, cut back to the last whole line (and whole UTF-8 character). */
async function readBounded(
  file: string,
  limit: number,
): Promise<{ text: string; bytes: number; truncated: boolean }> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(limit + 1);
    const { bytesRead } = await handle.read(buffer, 0, limit + 1, 0);
    if (bytesRead <= limit)
      return { text: buffer.toString('utf8', 0, bytesRead), bytes: bytesRead, truncated: false };
    const cut = buffer.lastIndexOf(0x0a, limit - 1);
    const end = cut > 0 ? cut + 1 : limit;
    return { text: buffer.toString('utf8', 0, end), bytes: end, truncated: true };
  } finally {
    await handle.close();
  }
}

/** One line for `--verbose`: which instruction files were loaded. */
export function describeInstructions(files: readonly InstructionsFile[]): string {
  if (files.length === 0) return 'instructions: no AGENTS.md or CLAUDE.md found';
  const listed = files.map((file) => `${file.path} (${file.bytes} bytes${file.truncated ? ', cut' : ''})`);
  return `instructions: ${listed.join(', ')}`;
}
