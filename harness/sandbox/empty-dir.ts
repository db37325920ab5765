import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { skateCacheDir } from '../skate-cache-dir.js';

let shared: string | undefined;

/**
 * An empty, read-only directory to mount over denied directories: `<cache>/skate/empty`,
 * made once per user and kept, so a harness killed by a signal leaves nothing behind (a
 * temporary one per process had piled up by the thousand in /tmp). Anything unexpected
 * there (a link, an entry, another owner) falls back to a temporary one for this process.
 */
export function emptyDirIn(cacheDir: string): string {
  const dir = path.join(cacheDir, 'empty');
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    try {
      mkdirSync(dir, { mode: 0o555 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const info = lstatSync(dir);
    const ours = process.getuid === undefined || info.uid === process.getuid();
    if (info.isDirectory() && ours && (info.mode & 0o222) === 0 && readdirSync(dir).length === 0) return dir;
  } catch {
    // A read-only or missing cache directory: use a temporary one.
  }
  const temporary = mkdtempSync(path.join(tmpdir(), 'skate-empty-'));
  process.on('exit', () => rmSync(temporary, { recursive: true, force: true }));
  return temporary;
}

/** The empty directory for this harness process's sandboxes. */
export function sharedEmptyDir(): string {
  shared ??= emptyDirIn(skateCacheDir());
  return shared;
}
