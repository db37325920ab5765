import { open, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

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
 * Writes a file atomically (temp file and rename) where the directory allows it,
 * and in place where it does not: a file bound writable into a read-only
 * directory, like a planning session's plan file, can only be written in place.
 */
export async function writeFileSafely(file: string, content: string, mode?: number): Promise<void> {
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.skate-${process.pid}-${Date.now()}.tmp`,
  );
  try {
    await writeFile(temp, content, { mode: mode ?? 0o644, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') {
      await writeInPlace(file, content);
      return;
    }
    throw error;
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EBUSY' || code === 'EXDEV' || code === 'EACCES' || code === 'EROFS' || code === 'EPERM') {
      await writeInPlace(file, content);
      return;
    }
    throw error;
  }
}

async function writeInPlace(file: string, content: string): Promise<void> {
  const handle = await open(file, 'w');
  try {
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
