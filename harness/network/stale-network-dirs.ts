import { constants } from 'node:fs';
import { lstat, open, readdir, readFile, rmdir, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The prefix of a sandbox's network directory (`mkdtemp` adds six characters). */
export const NETWORK_DIR_PREFIX = 'skate-net-';
/** The file inside one that names the harness owning it: `PID START` (START from `/proc/PID/stat`). */
export const OWNER_FILE_NAME = 'owner';

const OWNER_BYTES = 64;

/**
 * Records this process as the owner of a network directory it just made, so that a later start
 * can tell it was left by a harness that died (SIGKILL, OOM) without releasing it. Without
 * `/proc` nothing is recorded, and no sweep will ever remove the directory.
 */
export async function recordOwner(dir: string): Promise<void> {
  const start = await startTimeOf(process.pid);
  if (start === undefined) return;
  await writeFile(path.join(dir, OWNER_FILE_NAME), `${process.pid} ${start}\n`, {
    flag: 'wx',
    mode: 0o600,
  });
}

/**
 * Removes the network directories under `root` (default the temp dir) whose owner is gone: a
 * pid no longer running, or running but started at another time (a reused pid). Only real
 * directories this user owns are touched (a link of that name is left, never followed), each
 * holding an owner record that is a regular file; they are emptied entry by entry (`unlink`
 * removes a link, not what it leads to), so nothing outside them is removed. Resolves to what
 * was removed; anything it cannot judge or remove is left.
 */
export async function sweepStaleNetworkDirs(root: string = tmpdir()): Promise<string[]> {
  const uid = process.getuid?.();
  const names = await readdir(root).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(NETWORK_DIR_PREFIX)) continue;
    const dir = path.join(root, name);
    try {
      const info = await lstat(dir);
      if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
      const owner = await ownerOf(dir);
      if (!owner || (await startTimeOf(owner.pid)) === owner.start) continue;
      for (const entry of await readdir(dir)) await unlink(path.join(dir, entry));
      await rmdir(dir);
      removed.push(dir);
    } catch {
      // Gone meanwhile, or not ours to remove (a directory inside, a permission): left as it is.
    }
  }
  return removed;
}

/** The owner a directory records; undefined when it records none (made before owners were, or being made now). */
async function ownerOf(dir: string): Promise<{ pid: number; start: string } | undefined> {
  const handle = await open(path.join(dir, OWNER_FILE_NAME), constants.O_RDONLY | constants.O_NOFOLLOW).catch(
    () => undefined,
  );
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > OWNER_BYTES) return undefined;
    const match = /^(\d+) (\d+)\n$/.exec(await handle.readFile('utf8'));
    return match?.[1] && match[2] ? { pid: Number(match[1]), start: match[2] } : undefined;
  } finally {
    await handle.close();
  }
}

/**
 * When process `pid` started (field 22 of `/proc/PID/stat`, clock ticks since boot): with the pid,
 * it names one process. Undefined when there is no such process, or it is a zombie.
 */
async function startTimeOf(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return undefined;
  return fields[19];
}
