import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, readlink, realpath, stat } from 'node:fs/promises';
import { type Rule, ruleFor } from '../../shared/path-rule.js';
import { isWithin } from '../../shared/path-within.js';
import type { ResolvedPolicy } from '../../shared/policy.js';

export interface ReadBounds {
  /** Bytes read at most. */
  maxBytes: number;
  /** A longer file is cut at `maxBytes` (`truncated`), or refused. */
  overflow: 'cut' | 'refuse';
}

export interface ReadWorkspaceFileOptions extends ReadBounds {
  /**
   * The agent's policy: what was opened must be readable under it (allowed, and no deny entry or
   * glob matches). A function is called only once there is a file to check.
   */
  policy: ResolvedPolicy | (() => Promise<ResolvedPolicy>);
  /** A real directory what was opened must lie in (the workspace, the repository, `~/.skate`); none for a file the user named. */
  within?: string | undefined;
}

/** Why a file was not read; `message` completes a sentence that starts with the file's path. */
export type RefusalReason = 'not_file' | 'outside' | 'denied' | 'too_large' | 'unreadable';

export type WorkspaceFile =
  | { status: 'read'; data: Buffer; truncated: boolean; real: string }
  | { status: 'missing' }
  | { status: 'refused'; reason: RefusalReason; message: string };

/** Kernel interfaces: their "files" show the harness's own memory and environment (its API key). */
const MAGIC_ROOTS = ['/proc', '/sys', '/dev'];
const LINUX = process.platform === 'linux';
/** O_PATH opens a name without opening what it names: no device is opened, no FIFO waits for a writer. */
const O_PATH = 0o10000000;
const OPEN_NAME = LINUX ? O_PATH : constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const denyRules = new WeakMap<ResolvedPolicy, Rule[]>();

/**
 * The one way Skate reads a file it loads on its own initiative from a place an agent can write
 * (instructions, the plan, the workspace's settings; later `.mcp.json`, agent definitions, hooks):
 * as the agent's own policy allows, so a link planted by a command (`AGENTS.md -> .env`,
 * `.skate/plan.md -> ~/.ssh/id_rsa`) sends the model nothing its tools could not read. The name is
 * opened without following a last-component link and without opening what it names; then what was
 * opened (its real path, from the descriptor, not the name) must be a regular file, outside
 * `/proc`, `/sys` and `/dev`, inside `within`, and readable under the policy. A link is followed
 * when what it leads to passes the same checks (`CLAUDE.md -> AGENTS.md`): the descriptor, not the
 * link, is checked, so a swap between the check and the read changes nothing. Bounded; a FIFO or a
 * device is refused, never waited on.
 */
export function readWorkspaceFile(file: string, options: ReadWorkspaceFileOptions): Promise<WorkspaceFile> {
  return readRegularFile(file, options, async (real) => {
    const policy = typeof options.policy === 'function' ? await options.policy() : options.policy;
    return policyRefusal(real, policy, options.within);
  });
}

/**
 * A file of the user's own configuration (`~/.skate/settings.json`), which no sandbox can write:
 * links are followed anywhere (a dotfiles repository), but it must be a regular file, and it is
 * bounded, so a FIFO or `/dev/zero` cannot hang the harness or fill its memory.
 */
export function readUserFile(file: string, bounds: ReadBounds): Promise<WorkspaceFile> {
  return readRegularFile(file, bounds, async () => undefined);
}

/** Opens without opening (O_PATH), checks what was opened, then reads it, bounded. */
async function readRegularFile(
  file: string,
  bounds: ReadBounds,
  check: (real: string) => Promise<WorkspaceFile | undefined>,
): Promise<WorkspaceFile> {
  let handle: FileHandle;
  try {
    handle = await open(file, OPEN_NAME | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    if (code !== 'ELOOP' || LINUX) return unreadable(code);
    // Without O_PATH a link fails to open with O_NOFOLLOW: open what it leads to (checked below).
    try {
      handle = await open(file, OPEN_NAME);
    } catch (followed) {
      return unreadable((followed as NodeJS.ErrnoException).code);
    }
  }
  try {
    let info = await handle.stat();
    if (info.isSymbolicLink()) {
      await handle.close();
      try {
        handle = await open(file, OPEN_NAME);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A link to nothing is no file, as a missing name is.
        return code === 'ENOENT' || code === 'ENOTDIR' ? { status: 'missing' } : unreadable(code);
      }
      info = await handle.stat();
    }
    const real = await openedPath(handle, file, info);
    if (real === undefined) return refused('unreadable', 'changed while it was being opened; not read');
    const refusal = kindRefusal(real, info) ?? (await check(real));
    if (refusal) return refusal;
    if (info.size > bounds.maxBytes && bounds.overflow === 'refuse')
      return refused('too_large', `is larger than ${bounds.maxBytes} bytes; not read`);
    const read = await readBounded(handle, bounds.maxBytes);
    if (read.truncated && bounds.overflow === 'refuse')
      return refused('too_large', `is larger than ${bounds.maxBytes} bytes; not read`);
    return { status: 'read', real, ...read };
  } catch (error) {
    return unreadable((error as NodeJS.ErrnoException).code);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** What the descriptor is open on: on Linux the kernel says; elsewhere the name's real path, if it is the same file. */
async function openedPath(handle: FileHandle, file: string, info: Stats): Promise<string | undefined> {
  if (LINUX) {
    const real = await readlink(`/proc/self/fd/${handle.fd}`);
    // Unlinked since it was opened: its name no longer says what it was.
    return real.endsWith(' (deleted)') ? undefined : real;
  }
  const real = await realpath(file);
  const named = await stat(real);
  return named.dev === info.dev && named.ino === info.ino ? real : undefined;
}

/** Only a regular file, and none of the kernel's (their "files" show the harness's own memory and environment). */
function kindRefusal(real: string, info: Stats): WorkspaceFile | undefined {
  const magic = MAGIC_ROOTS.find((root) => isWithin(root, real));
  if (magic) return refused('not_file', `leads to ${real}, under ${magic}, a kernel interface; not read`);
  if (!info.isFile()) return refused('not_file', `is not a regular file (${kindOf(info)}); not read`);
  return undefined;
}

function policyRefusal(
  real: string,
  policy: ResolvedPolicy,
  within: string | undefined,
): WorkspaceFile | undefined {
  if (within !== undefined && !isWithin(within, real))
    return refused('outside', `leads to ${real}, outside ${within}; not read`);
  if (!policy.read.allow.some((root) => isWithin(root, real)))
    return refused('denied', `leads to ${real}, which policy "${policy.name}" does not let the agent read`);
  let rules = denyRules.get(policy);
  if (!rules) {
    rules = policy.read.deny.map(ruleFor);
    denyRules.set(policy, rules);
  }
  const hit = rules.findIndex((rule) => rule.matches(real));
  if (hit >= 0)
    return refused(
      'denied',
      `leads to ${real}, which policy "${policy.name}" denies the agent (${policy.read.deny[hit]}); not read`,
    );
  return undefined;
}

/** At most `maxBytes` from the start; `truncated` when there was more. */
async function readBounded(
  handle: FileHandle,
  maxBytes: number,
): Promise<{ data: Buffer; truncated: boolean }> {
  // An O_PATH descriptor cannot be read: reopen what it is open on, which is the file checked.
  const reader = LINUX
    ? await open(`/proc/self/fd/${handle.fd}`, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY)
    : handle;
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await reader.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const truncated = filled > maxBytes;
    return { data: buffer.subarray(0, Math.min(filled, maxBytes)), truncated };
  } finally {
    if (reader !== handle) await reader.close();
  }
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

function refused(reason: RefusalReason, message: string): WorkspaceFile {
  return { status: 'refused', reason, message };
}

function unreadable(code: string | undefined): WorkspaceFile {
  return refused('unreadable', `cannot be read (${code ?? 'unknown error'})`);
}
