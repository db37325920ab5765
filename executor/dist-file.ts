import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root, found on first use: the walk reads a package.json per level. */
let root: string | undefined;

/**
 * The absolute path of a built file under the project's `dist/`, found by
 * walking up from this module to the package named "skate". Works the same
 * from source (tests), from dist/ and from the bundle, since all live in the
 * project. Throws, naming `npm run build`, when the file is missing.
 */
export function distFile(relative: string): string {
  root ??= projectRoot(path.dirname(fileURLToPath(import.meta.url)));
  const file = path.join(root, 'dist', relative);
  if (!existsSync(file)) {
    throw new Error(`${file} is missing; run \`npm run build\` in ${root} to build it`);
  }
  return file;
}

function projectRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (isSkatePackage(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) {
      throw new Error(`no package.json named "skate" above ${start}; is Skate installed intact?`);
    }
  }
}

function isSkatePackage(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'skate';
  } catch {
    return false;
  }
}
