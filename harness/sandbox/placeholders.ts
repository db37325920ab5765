import { constants } from 'node:fs';
import { mkdir, open, readdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OpenedDir } from '../opened-dir.js';
import type { Placeholder } from './plan-sandbox.js';

/**
 * Stand-ins for protected names that do not exist yet (inside `.git` only: see
 * `SandboxPlan.placeholders`), shared by every executor of this harness:
 * created on first use, removed when the last executor using them is gone and
 * they are still as made.
 */
const users = new Map<string, number>();
const created = new Set<string>();

/**
 * The directory a placeholder goes in, opened without following a link: a writable `.git` can be
 * swapped for one by a sandbox already running, and nothing is made or removed through it.
 */
function parentOf(placeholder: Placeholder): Promise<OpenedDir> {
  return OpenedDir.open(path.dirname(placeholder.path));
}

async function create(placeholder: Placeholder): Promise<boolean> {
  await using parent = await parentOf(placeholder);
  const entry = parent.at(path.basename(placeholder.path));
  try {
    if (placeholder.kind === 'dir') await mkdir(entry);
    else await writeFile(entry, placeholder.content ?? '', { flag: 'wx', mode: 0o644 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function removeIfUnchanged(placeholder: Placeholder): Promise<void> {
  try {
    await using parent = await parentOf(placeholder);
    const entry = parent.at(path.basename(placeholder.path));
    if (placeholder.kind === 'dir') {
      if ((await readdir(entry)).length === 0) await rmdir(entry);
      return;
    }
    const handle = await open(entry, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    let content: string;
    try {
      content = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
    if (content === (placeholder.content ?? '')) await unlink(entry);
  } catch {
    // Gone already, or no longer ours to remove.
  }
}

/** Creates the placeholders; the returned function releases this executor's use of them. */
export async function acquirePlaceholders(
  placeholders: readonly Placeholder[],
): Promise<() => Promise<void>> {
  for (const placeholder of placeholders) {
    users.set(placeholder.path, (users.get(placeholder.path) ?? 0) + 1);
    if (await create(placeholder)) created.add(placeholder.path);
  }
  return async () => {
    for (const placeholder of placeholders) {
      const left = (users.get(placeholder.path) ?? 1) - 1;
      if (left > 0) {
        users.set(placeholder.path, left);
        continue;
      }
      users.delete(placeholder.path);
      if (created.delete(placeholder.path)) await removeIfUnchanged(placeholder);
    }
  };
}
