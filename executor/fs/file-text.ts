import { constants } from 'node:fs';
import { type FileHandle, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * The tool's policy check on what an open descriptor reaches (`PathGuard.checkOpenedForRead` or
 * `…ForWrite`), run before a byte is read or written: throws to refuse.
 */
export type OpenedCheck = (fd: number) => void;

/** Bytes inspected to decide whether a file is text. */
const SNIFF_BYTES = 8192;

/** True when a buffer looks binary: a NUL byte, or many bytes that are not valid UTF-8 text. */
export function looksBinary(sample: Buffer): boolean {
  const head = sample.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) return true;
  const text = head.toString('utf8');
  let replaced = 0;
  for (const ch of text) if (ch === '\uFFFD') replaced++;
  // A multi-byte character cut at the sample's end decodes as one replacement; allow a few.
  return replaced > 4 && replaced / Math.max(1, text.length) > 0.01;
}

/**
 * A file's bytes, or undefined when it does not exist. `check` sees the descriptor before anything
 * is read: the path was checked before, and may have become a symlink since.
 */
export async function readChecked(file: string, check: OpenedCheck): Promise<Buffer | undefined> {
  let handle: FileHandle;
  try {
    // Non-blocking: a FIFO swapped in is read empty rather than waited on.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    check(handle.fd);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file atomically (temp file and rename) where the directory allows it,
 * and in place where it does not: a file bound writable into a read-only
 * directory, like a planning session's plan file, can only be written in place.
 * `check` sees each descriptor before it is written (the rename itself is by path:
 * there the kernel's mounts are what holds).
 */
export async function writeFileSafely(
  file: string,
  content: string,
  mode: number | undefined,
  check: OpenedCheck,
): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.skate-${process.pid}-${Date.now()}.tmp`,
  );
  let handle: FileHandle;
  try {
    handle = await open(temp, 'wx', mode ?? 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') {
      await writeInPlace(file, content, check);
      return;
    }
    throw error;
  }
  try {
    check(handle.fd);
    await handle.writeFile(content);
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EBUSY' || code === 'EXDEV' || code === 'EACCES' || code === 'EROFS' || code === 'EPERM') {
      await writeInPlace(file, content, check);
      return;
    }
    throw error;
  }
}

async function writeInPlace(file: string, content: string, check: OpenedCheck): Promise<void> {
  // Truncated only once checked; non-blocking, so a FIFO without a reader fails instead of hanging.
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK, 0o666);
  try {
    check(handle.fd);
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

/** The mode bits of an existing file, or undefined when it does not exist. */
export async function existingMode(file: string): Promise<number | undefined> {
  try {
    const info = await stat(file);
    return info.mode & 0o7777;
  } catch {
    return undefined;
  }
}
