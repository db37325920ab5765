import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The Skate checkout or install this code runs from (whether from dist/ or from sources under vitest). */
export function projectRoot(): string {
  if (root) return root;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'skate'
    ) {
      root = dir;
      return dir;
    }
    if (path.dirname(dir) === dir) throw new Error('cannot find the Skate package root');
  }
}

/** Compiled JavaScript the harness spawns; processes never run through a TypeScript loader. */
export function distPath(...segments: string[]): string {
  const file = path.join(projectRoot(), 'dist', ...segments);
  if (!existsSync(file)) throw new Error(`${file} is missing; run \`npm run build\` first`);
  return file;
}
