import { readFileSync } from 'node:fs';
import { distFile } from './dist-file.js';

/**
 * A tool's model-facing description, kept next to its source as `executor/tools/<name>.md`
 * and copied to dist/ by the build, so the executor bundle reads it from there. Read once,
 * when the tool's module loads.
 */
export function toolDescription(name: string): string {
  return readFileSync(distFile(`executor/tools/${name}.md`), 'utf8').trim();
}
