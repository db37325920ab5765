import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Writes a file of the user's cache whole or not at all (a temporary file, then a rename): a
 * reader sees the old content, none, or the new one. Synchronous, so it also works in an `exit`
 * handler; the files are small or written once per build. A failure (a read-only or full disk)
 * is swallowed: a cache only saves time. Returns whether the file was written.
 */
export function writeFileAtomically(file: string, data: string | Uint8Array): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, data, { mode: 0o600 });
    renameSync(temporary, file);
    return true;
  } catch {
    rmSync(temporary, { force: true });
    return false;
  }
}
