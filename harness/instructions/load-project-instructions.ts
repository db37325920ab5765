import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { readWorkspaceFile } from '../workspace-files/read-workspace-file.js';

/** One instructions file that was loaded. */
export interface InstructionsFile {
  path: string;
  bytes: number;
  /** Cut at the per-file or total bound. */
  truncated: boolean;
}

/** An instructions file that exists but was not read, and why (a sentence that follows its path). */
export interface RefusedInstructions {
  path: string;
  reason: string;
}

export interface ProjectInstructions {
  /** The system prompt section, or undefined when no file was found. */
  text: string | undefined;
  /** In the order they appear in `text`. */
  files: InstructionsFile[];
  /** Files left out because the agent's policy or the tree they must stay in does not allow them. */
  refused: RefusedInstructions[];
}

export interface LoadInstructionsOptions {
  /** The workspace, a real path. */
  workspace: string;
  /** The agent's policy: a file (or what a link leads to) it may not read is not read here either. */
  policy: ResolvedPolicy;
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
 * run. Read on the host as the agent's policy allows (`readWorkspaceFile`), each file bounded: a
 * symlink is followed only to a regular file the policy lets the agent read, inside the workspace
 * for the workspace's own file, inside the repository for those above it, inside `~/.skate` for
 * the user's (`AGENTS.md -> .env`, or `-> ~/.ssh/id_ed25519`, is left out with a note).
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
  // The workspace's own file is the one an agent can plant: what it leads to stays in the workspace.
  for (const dir of directoriesDown(root, options.workspace))
    candidates.push({ dir, within: dir === options.workspace ? dir : root });

  const seen = new Set<string>();
  const sections: string[] = [];
  const files: InstructionsFile[] = [];
  const refused: RefusedInstructions[] = [];
  for (const { dir, within } of candidates) {
    if (budget <= 0) break;
    const file = await firstInstructionsFile(dir, {
      within,
      policy: options.policy,
      limit: Math.min(maxFile, budget),
      refused,
    });
    if (!file || seen.has(file.real)) continue;
    seen.add(file.real);
    const { text, bytes, truncated } = file;
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
  if (sections.length === 0) return { text: undefined, files, refused };
  return {
    text: [
      '# Project instructions',
      'The user and the project keep these instructions for agents (AGENTS.md and CLAUDE.md files), from the most general to the most specific; where they disagree, the more specific one wins. Follow them unless the user says otherwise.',
      ...sections,
    ].join('\n\n'),
    files,
    refused,
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

/**
 * `AGENTS.md` or else `CLAUDE.md` in `dir`, read as the policy allows and cut at `limit` bytes;
 * one that is refused is noted and the next name is tried, as for a missing one.
 */
async function firstInstructionsFile(
  dir: string,
  options: { within: string; policy: ResolvedPolicy; limit: number; refused: RefusedInstructions[] },
): Promise<({ path: string; real: string } & BoundedText) | undefined> {
  for (const name of NAMES) {
    const file = path.join(dir, name);
    const read = await readWorkspaceFile(file, {
      policy: options.policy,
      within: options.within,
      maxBytes: options.limit,
      overflow: 'cut',
    });
    if (read.status === 'missing') continue;
    if (read.status === 'refused') {
      options.refused.push({ path: file, reason: read.message });
      continue;
    }
    return { path: file, real: read.real, ...cutAtLine(read.data, read.truncated) };
  }
  return undefined;
}

interface BoundedText {
  text: string;
  bytes: number;
  truncated: boolean;
}

/** What was read; when cut, back to the last whole line (and whole UTF-8 character). */
function cutAtLine(data: Buffer, truncated: boolean): BoundedText {
  if (!truncated) return { text: data.toString('utf8'), bytes: data.length, truncated };
  const cut = data.lastIndexOf(0x0a, data.length - 1);
  const end = cut > 0 ? cut + 1 : data.length;
  return { text: data.toString('utf8', 0, end), bytes: end, truncated };
}

/** One line for a file left out: said whether or not `--verbose`, since the user may expect it read. */
export function describeRefusedInstructions(file: RefusedInstructions): string {
  return `instructions: ${file.path} not loaded: ${file.reason}`;
}

/** One line for `--verbose`: which instruction files were loaded. */
export function describeInstructions(files: readonly InstructionsFile[]): string {
  if (files.length === 0) return 'instructions: no AGENTS.md or CLAUDE.md found';
  const listed = files.map((file) => `${file.path} (${file.bytes} bytes${file.truncated ? ', cut' : ''})`);
  return `instructions: ${listed.join(', ')}`;
}
