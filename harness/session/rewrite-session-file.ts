import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { SessionEvent, SessionHeader } from '../../shared/session-format.js';
import { SessionError } from './session-error.js';

/**
 * Replaces `file` with `header` and `events` in today's format, atomically: a
 * private temp file beside it is written and synced, then renamed over it, so
 * a crash leaves either the old file or the new one. Resuming a version 1
 * session does this before appending (the caller holds the session's lock).
 */
export async function rewriteSessionFile(
  file: string,
  header: SessionHeader,
  events: readonly SessionEvent[],
): Promise<void> {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(`${[header, ...events].map((line) => JSON.stringify(line)).join('\n')}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw SessionError.fromUnknown(error, file);
  }
  // So the rename survives a power cut. Best effort.
  const dir = await open(path.dirname(file), 'r').catch(() => undefined);
  await dir?.sync().catch(() => {});
  await dir?.close().catch(() => {});
}
