import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
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
  await mkdir(path.join(cache, 'skate'), { recursive: true });
  const root = await mkdtemp(path.join(cache, 'skate', 'demo-'));
  const dir = path.join(root, 'project');
  await mkdir(path.join(dir, 'src'), { recursive: true });
  await writeFile(
    path.join(dir, 'README.md'),
    '# Demo project\n\nA tiny project for the Skate demo. It greets people.\n',
  );
  await writeFile(path.join(dir, 'src', 'greet.js'), 'export const greet = (name) => `Hello, ${name}!`;\n');
  return { dir, outsidePath: path.join(root, 'outside.txt') };
}
