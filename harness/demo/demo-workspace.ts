import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

export interface DemoWorkspace {
  dir: string;
  /** A path outside the workspace that the demo tries, and fails, to write. */
  outsidePath: string;
}

/**
 * A throwaway project for the first-run demo, so that running the README's
 * command without an API key never touches the user's own files. It lives in
 * the user's cache rather than /tmp: inside the sandbox /tmp is private and
 * writable, so a write there would prove nothing, while the cache directory is
 * visible and read-only.
 */
export async function createDemoWorkspace(): Promise<DemoWorkspace> {
  const cache = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  const parent = path.join(cache, 'skate');
  await mkdir(parent, { recursive: true });
  await removeOldDemos(parent);
  const root = await mkdtemp(path.join(parent, 'demo-'));
  const dir = path.join(root, 'project');
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await writeFile(
    path.join(dir, 'README.md'),
    '# Demo project\n\nA tiny project for the Skate demo. It greets people.\n',
  );
  await writeFile(path.join(dir, 'src', 'greet.js'), 'export const greet = (name) => `Hello, ${name}!`;\n');
  return { dir, outsidePath: path.join(root, 'outside.txt') };
}

/** Demo workspaces are kept for a look afterwards, then cleared away a day later. */
async function removeOldDemos(parent: string): Promise<void> {
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  for (const name of await readdir(parent).catch(() => [])) {
    if (!name.startsWith('demo-')) continue;
    const dir = path.join(parent, name);
    const info = await stat(dir).catch(() => undefined);
    if (info?.isDirectory() && info.mtimeMs < dayAgo)
      await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}
