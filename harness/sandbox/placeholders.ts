import { mkdir, readdir, readFile, rmdir, unlink, writeFile } from 'node:fs/promises';
import type { Placeholder } from './plan-sandbox.js';

/**
 * Stand-ins for protected names that do not exist yet (inside `.git` only: see
 * `SandboxPlan.placeholders`), shared by every executor of this harness:
 * created on first use, removed when the last executor using them is gone and
 * they are still as made.
 */
const users = new Map<string, number>();
const created = new Set<string>();

async function create(placeholder: Placeholder): Promise<boolean> {
  try {
    if (placeholder.kind === 'dir') await mkdir(placeholder.path);
    else await writeFile(placeholder.path, placeholder.content ?? '', { flag: 'wx', mode: 0o644 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function removeIfUnchanged(placeholder: Placeholder): Promise<void> {
  try {
    if (placeholder.kind === 'dir') {
      if ((await readdir(placeholder.path)).length === 0) await rmdir(placeholder.path);
    } else if ((await readFile(placeholder.path, 'utf8')) === (placeholder.content ?? '')) {
      await unlink(placeholder.path);
    }
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
