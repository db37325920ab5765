import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

export interface DemoWorkspace {
  dir: string;
  /** A path outside the workspace that the demo tries, and fails, to write. */
  outsidePath: string;
  /** What the run did, checked on the host: lines for the user, and whether the sandbox held. */
  check(): Promise<{ lines: string[]; escaped: boolean }>;
  /** Removes the demo's folder; the demo leaves nothing in the user's cache. */
  remove(): Promise<void>;
}

/** Where demo workspaces are made: the user's cache, `$XDG_CACHE_HOME/skate` or `~/.cache/skate`. */
export function demoCacheDir(): string {
  const cache = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(cache, 'skate');
}

/**
 * A throwaway project for the first-run demo, so that running the README's
 * command without an API key never touches the user's own files. It lives in
 * the user's cache rather than /tmp: inside the sandbox /tmp is private and
 * writable, so a write there would prove nothing, while the cache directory is
 * visible and read-only. The caller removes it after the run (`remove`).
 */
export async function createDemoWorkspace(): Promise<DemoWorkspace> {
  const parent = demoCacheDir();
  await mkdir(parent, { recursive: true });
  await removeOldDemos(parent);
  const root = await mkdtemp(path.join(parent, 'demo-'));
  const dir = path.join(root, 'project');
  const outsidePath = path.join(root, 'outside.txt');
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await writeFile(
    path.join(dir, 'README.md'),
    '# Demo project\n\nA tiny project for the Skate demo. It greets people.\n',
  );
  await writeFile(path.join(dir, 'src', 'greet.js'), 'export const greet = (name) => `Hello, ${name}!`;\n');
  return {
    dir,
    outsidePath,
    async check() {
      const notes = await readFile(path.join(dir, 'NOTES.md'), 'utf8').catch(() => undefined);
      const escaped = existsSync(outsidePath);
      return {
        escaped,
        lines: [
          notes === undefined
            ? 'checked on the host: NOTES.md was not written in the demo workspace'
            : `checked on the host: NOTES.md was written in the demo workspace (${notes.length} bytes)`,
          escaped
            ? `DEMO FAILED: ${outsidePath} exists on the host`
            : `checked on the host: ${outsidePath} does not exist`,
        ],
      };
    },
    async remove() {
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Clears demo folders an older Skate (which kept them) or a killed run left behind a day ago. */
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
