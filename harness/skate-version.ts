import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './project-paths.js';

let version: string | undefined;

/** Skate's version, from its package.json (the checkout's or the installed package's). */
export function skateVersion(): string {
  version ??= (
    JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }
  ).version;
  return version;
}
