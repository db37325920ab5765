import {
  closeSync,
  constants,
  type Dirent,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
} from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { defineTool, type ToolContext, ToolFailure } from '../define-tool.js';
import { fdPath, openedPath } from '../path-guard.js';
import { toolDescription } from '../tool-description.js';

/** Entries listed before the listing stops, so one call cannot flood the model's context. */
const MAX_ENTRIES = 1000;
/** Shown but not descended into: their contents are rarely what a listing is for, and huge. */
const NOT_EXPANDED = new Set(['.git', 'node_modules']);
/**
 * Longest stretch of blocking directory reads before the event loop gets a turn. The reads block
 * because a thread-pool round trip per call cost more than the listing itself (a 40-entry
 * directory: readdir 26 µs blocking, 56 µs on the pool; stat 3 µs against 21 µs).
 */
const YIELD_EVERY_MS = 8;

interface Node {
  readonly name: string;
  /** `dir` includes symlinks to directories; they are shown, never followed. */
  readonly kind: 'dir' | 'file' | 'other';
  /** For symlinks: the link's text, and whether it leads anywhere. */
  readonly link?: { target: string; broken: boolean };
  children?: Node[];
  note?: string;
}

export const listDirTool = defineTool({
  name: 'list_dir',
  effect: 'read',
  description: toolDescription('list_dir'),
  input: z.object({
    path: z.string().min(1).default('.').describe('Directory to list. Default: the workspace.'),
    depth: z.number().int().min(1).max(5).default(1).describe('Levels to list, 1–5. Default 1.'),
    include_hidden: z.boolean().optional().describe('Also list entries whose names start with ".".'),
  }),
  async run(input, ctx) {
    const checked = await ctx.paths.forRead(input.path);
    let fd: number;
    try {
      fd = openSync(checked, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new ToolFailure('not_found', `${input.path} does not exist`);
      if (code === 'ENOTDIR') {
        throw new ToolFailure('invalid_input', `${input.path} is a file, not a directory; use read_file`);
      }
      throw error;
    }
    let root: string;
    try {
      // What was opened, not the path checked before: a symlink may have been swapped in meanwhile.
      ctx.paths.checkOpenedForRead(input.path, fd);
      root = openedPath(fd) ?? checked;
    } finally {
      closeSync(fd);
    }
    // Asked for by name: a listing inside .git or node_modules expands them like any directory.
    const expandAll = root.split(path.sep).some((part) => NOT_EXPANDED.has(part));
    const includeHidden = input.include_hidden ?? false;

    // Breadth first, so when the cap is hit the listing keeps the shallow entries.
    const top: Node[] = [];
    const queue: { dir: string; level: number; into: Node[] }[] = [{ dir: root, level: 1, into: top }];
    let entries = 0;
    let hidden = 0;
    let truncated = false;
    let lastYield = performance.now();
    while (queue.length > 0 && !truncated) {
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
      ctx.signal.throwIfAborted();
      const { dir, level, into } = queue.shift()!;
      const listed = readEntries(dir, ctx, includeHidden);
      hidden += listed.hidden;
      for (const { node, real } of listed.nodes) {
        if (entries === MAX_ENTRIES) {
          truncated = true;
          break;
        }
        entries++;
        into.push(node);
        if (node.kind !== 'dir' || node.link || level >= input.depth) continue;
        if (NOT_EXPANDED.has(node.name) && !expandAll) {
          node.note = '(not expanded)';
          continue;
        }
        node.children = [];
        queue.push({ dir: real, level: level + 1, into: node.children });
      }
    }

    const lines: string[] = [];
    render(top, 0, lines);
    if (lines.length === 0) lines.push('(empty directory)');
    if (truncated) {
      lines.push(
        `[listing stopped at ${MAX_ENTRIES} entries; directories after that point are shown without contents. List a subdirectory or use a smaller depth]`,
      );
    }
    if (hidden > 0) {
      lines.push(
        `[${hidden} hidden ${hidden === 1 ? 'entry' : 'entries'} not shown; pass include_hidden: true]`,
      );
    }
    return {
      output: lines.join('\n'),
      display: { type: 'listing', path: input.path, entries, truncated },
    };
  },
});

function readEntries(
  dir: string,
  ctx: ToolContext,
  includeHidden: boolean,
): { nodes: { node: Node; real: string }[]; hidden: number } {
  let dirents: Dirent[];
  try {
    dirents = readChecked(dir);
  } catch (error) {
    // A subdirectory we may not read shows up empty rather than failing the whole listing.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'ENOENT' || code === 'ENOTDIR')
      return { nodes: [], hidden: 0 };
    throw error;
  }
  let hidden = 0;
  const nodes: { node: Node; real: string }[] = [];
  const readable = ctx.paths.readableUnder(dir);
  // `dir` is real and absolute and a name has no `/`: concatenation, not path.join's normalising.
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  for (const dirent of dirents) {
    if (!includeHidden && dirent.name.startsWith('.')) {
      hidden++;
      continue;
    }
    const full = prefix + dirent.name;
    if (dirent.isSymbolicLink()) {
      const node = describeLink(dirent.name, full, ctx);
      if (node) nodes.push({ node, real: full });
      continue;
    }
    // Denied entries (a `.env`, a secrets directory) are left out, not shown as denied.
    if (!readable(dirent.name)) continue;
    const kind = dirent.isDirectory() ? 'dir' : dirent.isFile() ? 'file' : 'other';
    nodes.push({ node: { name: dirent.name, kind }, real: full });
  }
  nodes.sort((a, b) => rank(a.node) - rank(b.node) || compare(a.node.name, b.node.name));
  return { nodes, hidden };
}

/**
 * The entries of `dir`, a real path already checked, read from a descriptor that still reaches it:
 * a directory swapped for a symlink since lists as empty, not as what the link points to.
 */
function readChecked(dir: string): Dirent[] {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NONBLOCK);
  try {
    const opened = openedPath(fd);
    if (opened === undefined) return readdirSync(dir, { withFileTypes: true });
    return opened === dir ? readdirSync(fdPath(fd), { withFileTypes: true }) : [];
  } finally {
    closeSync(fd);
  }
}

function describeLink(name: string, full: string, ctx: ToolContext): Node | undefined {
  const target = readlinkSync(full);
  let real: string;
  try {
    real = realpathSync.native(full);
  } catch {
    return { name, kind: 'file', link: { target, broken: true } };
  }
  // A link to a denied file is as secret as the file.
  if (!ctx.paths.readable(real)) return undefined;
  let isDir = false;
  try {
    isDir = statSync(real).isDirectory();
  } catch {}
  return { name, kind: isDir ? 'dir' : 'file', link: { target, broken: false } };
}

function rank(node: Node): number {
  return node.kind === 'dir' ? 0 : 1;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function render(nodes: readonly Node[], level: number, out: string[]): void {
  const indent = '  '.repeat(level);
  for (const node of nodes) {
    let line = indent + node.name + (node.kind === 'dir' ? '/' : '');
    if (node.link) line += ` -> ${node.link.target}${node.link.broken ? ' (broken link)' : ''}`;
    if (node.kind === 'other') line += ' (special file)';
    if (node.note) line += ` ${node.note}`;
    out.push(line);
    if (node.children) render(node.children, level + 1, out);
  }
}
