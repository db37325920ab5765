import { chmod, lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { readWorkspaceFile } from '../workspace-files/read-workspace-file.js';
import { runGit } from './private-git.js';

/** One file a worktree child changed, with both versions (what it started from, what it left). */
export interface AgentChange {
  /** Relative to the workspace, `/`-separated. */
  path: string;
  status: 'added' | 'modified' | 'deleted';
  /** Git modes: `100644`, `100755`, `120000` (a link), `160000` (a nested repository). */
  oldMode: string;
  newMode: string;
  before?: Buffer | undefined;
  after?: Buffer | undefined;
}

/** What a worktree child's run changed, against the copy it started from. */
export interface AgentDiff {
  changes: AgentChange[];
  /** A unified diff for the model to read (binary files named, not shown). */
  text: string;
  truncated: boolean;
}

export interface AgentWorktree {
  /** The child's workspace and only write root. */
  readonly path: string;
  /** Files copied in, and what was left out with why (links, too large, refused). */
  readonly copied: number;
  readonly skipped: string[];
  /** The child's changes; call once it has ended. */
  collect(): Promise<AgentDiff>;
  /** Removes the worktree and its private git directory. */
  remove(): Promise<void>;
}

/** Names never copied in: git's own data and Skate's (sessions, settings), neither of which a child needs. */
const NOT_COPIED = new Set(['.git', '.skate']);
const MAX_FILES = 20_000;
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
const MAX_DIFF_CHARS = 100_000;
/** Changed files larger than this are named in the diff but not kept for applying. */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;

/**
 * A writing child's own tree: a copy of the workspace as it is now (tracked and untracked files,
 * not ignored ones, so the child sees the parent's uncommitted work) in `dir/tree`, with a
 * baseline recorded in a private git directory `dir/git` that no sandbox is given. Not `git
 * worktree add`: that writes into the parent's `.git` (which every sandbox keeps read-only, and
 * the harness leaves alone too), and a worktree's `.git` file, writable by the child, would name
 * the git directory the harness later runs git against. Files are read as the parent's policy
 * allows (`readWorkspaceFile`): no link is followed out, nothing denied (`.env`) is copied.
 */
export async function createAgentWorktree(options: {
  workspace: string;
  policy: ResolvedPolicy;
  dir: string;
}): Promise<AgentWorktree> {
  const { workspace, policy, dir } = options;
  const tree = path.join(dir, 'tree');
  const gitDir = path.join(dir, 'git');
  await mkdir(tree, { recursive: true, mode: 0o700 });
  const git = (args: string[], expectZero = true) =>
    runGit(args, { cwd: tree, env: { GIT_DIR: gitDir, GIT_WORK_TREE: tree }, expectZero });
  const skipped: string[] = [];
  let copied = 0;
  try {
    let total = 0;
    for (const rel of await workspaceFiles(workspace)) {
      if (NOT_COPIED.has(rel.split('/')[0] as string)) continue;
      const source = path.join(workspace, rel);
      const stats = await lstat(source).catch(() => undefined);
      if (!stats) continue; // tracked but deleted in the workspace
      if (!stats.isFile()) {
        if (stats.isSymbolicLink()) skipped.push(`${rel}: a symbolic link`);
        continue;
      }
      const read = await readWorkspaceFile(source, {
        maxBytes: MAX_FILE_BYTES,
        overflow: 'refuse',
        policy,
        within: workspace,
      });
      if (read.status !== 'read') {
        if (read.status === 'refused') skipped.push(`${rel}: ${read.message}`);
        continue;
      }
      total += read.data.length;
      if (total > MAX_TOTAL_BYTES) throw new Error(`the workspace holds more than ${MAX_TOTAL_BYTES} bytes`);
      const target = path.join(tree, rel);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, read.data, { flag: 'wx' });
      if (stats.mode & 0o111) await chmod(target, 0o755);
      copied++;
    }
    await git(['init', '-q']);
    await git(['add', '-A']);
    const base = (await git(['write-tree'])).stdout.toString('utf8').trim();
    return {
      path: tree,
      copied,
      skipped,
      async collect() {
        await git(['add', '-A']);
        const head = (await git(['write-tree'])).stdout.toString('utf8').trim();
        const raw = (await git(['diff-tree', '-r', '-z', '--no-renames', '--raw', base, head])).stdout;
        const changes: AgentChange[] = [];
        for (const entry of parseRaw(raw.toString('utf8'))) {
          const blob = async (sha: string, mode: string): Promise<Buffer | undefined> => {
            if (/^0+$/.test(sha) || mode === '160000') return undefined;
            const size = Number((await git(['cat-file', '-s', sha])).stdout.toString('utf8').trim());
            if (size > MAX_KEPT_BYTES) return undefined;
            return (await git(['cat-file', 'blob', sha])).stdout;
          };
          changes.push({
            path: entry.path,
            status: entry.status === 'A' ? 'added' : entry.status === 'D' ? 'deleted' : 'modified',
            oldMode: entry.oldMode,
            newMode: entry.newMode,
            before: await blob(entry.oldSha, entry.oldMode),
            after: await blob(entry.newSha, entry.newMode),
          });
        }
        const patch = (
          await git(['diff-tree', '-r', '-p', '--no-renames', '--no-color', base, head])
        ).stdout.toString('utf8');
        const truncated = patch.length > MAX_DIFF_CHARS;
        return { changes, text: truncated ? patch.slice(0, MAX_DIFF_CHARS) : patch, truncated };
      },
      remove: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

interface RawEntry {
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
  status: string;
  path: string;
}

/** `git diff-tree --raw -z`: `:old new oldsha newsha STATUS\0path\0` per change. */
function parseRaw(text: string): RawEntry[] {
  const parts = text.split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i] as string;
    const match = /^:(\d+) (\d+) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(meta);
    if (!match) continue;
    entries.push({
      oldMode: match[1] as string,
      newMode: match[2] as string,
      oldSha: match[3] as string,
      newSha: match[4] as string,
      status: match[5] as string,
      path: parts[i + 1] as string,
    });
  }
  return entries;
}

/**
 * The workspace's files, relative: in a git work tree, what git lists (tracked and untracked,
 * ignored ones left out); elsewhere a walk that skips `node_modules`. Bounded either way.
 */
async function workspaceFiles(workspace: string): Promise<string[]> {
  const inside = await runGit(['rev-parse', '--is-inside-work-tree'], { cwd: workspace, expectZero: false });
  if (inside.code === 0 && inside.stdout.toString('utf8').trim() === 'true') {
    const listed = await runGit(['ls-files', '-z', '-c', '-o', '--exclude-standard'], { cwd: workspace });
    const names = [...new Set(listed.stdout.toString('utf8').split('\0').filter(Boolean))];
    if (names.length > MAX_FILES) throw new Error(`the workspace holds more than ${MAX_FILES} files`);
    return names;
  }
  const names: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(workspace, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' || NOT_COPIED.has(entry.name)) continue;
        await walk(name);
      } else {
        names.push(name);
        if (names.length > MAX_FILES) throw new Error(`the workspace holds more than ${MAX_FILES} files`);
      }
    }
  };
  await walk('');
  return names;
}
