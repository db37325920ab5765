import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname, release, version } from 'node:os';
import path from 'node:path';
import { skateCacheDir } from '../skate-cache-dir.js';
import { writeFileAtomically } from '../write-file-atomically.js';

/** Kernel settings that decide whether bubblewrap may create user namespaces. */
const USERNS_SETTINGS = [
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/user/max_user_namespaces',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
];

/** The bwrap binary on PATH, resolved without running it. */
export function findOnPath(
  name: string,
  searchPath: string | undefined = process.env.PATH,
): string | undefined {
  for (const dir of (searchPath ?? '').split(':')) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/**
 * What a sandbox probe's verdict depends on: the machine, the kernel and its user-namespace
 * settings, the user, and the bwrap and skate-confine binaries (path, size, inode and time: a new
 * version changes them). Cheap to compute: a few stats and small reads, no process started.
 */
export function probeKey(bwrap: string, confine?: string): string {
  const binary = statSync(bwrap);
  const helper = confine === undefined ? undefined : statSync(confine);
  const settings = USERNS_SETTINGS.map((file) => {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      return '-';
    }
  });
  return JSON.stringify([
    hostname(),
    release(),
    version(),
    process.getuid?.() ?? -1,
    bwrap,
    binary.size,
    binary.ino,
    binary.mtimeMs,
    settings,
    ...(helper ? [confine, helper.size, helper.ino, helper.mtimeMs] : []),
  ]);
}

/** Where a machine's probe verdict is kept: the user's cache directory. */
export function probeCacheFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(skateCacheDir(env), 'sandbox-probe.json');
}

/** Whether a probe with this key already succeeded here. */
export async function probeCached(file: string, key: string): Promise<boolean> {
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { key?: unknown };
    return saved.key === key;
  } catch {
    return false;
  }
}

/** Remembers a successful probe; a failure to write only costs the next start a probe. */
export async function rememberProbe(file: string, key: string): Promise<void> {
  writeFileAtomically(file, JSON.stringify({ key }));
}
