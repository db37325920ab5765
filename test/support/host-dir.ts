import { homedir } from 'node:os';
import path from 'node:path';
import { type TempDir, tempDir } from './temp-dir.js';

/**
 * A temporary directory the sandbox can see. Unlike `tempDir()` (under /tmp,
 * which every sandbox replaces with its own), paths here are visible, read-only,
 * inside a sandbox, so a test can tell a blocked write from one that landed in a
 * private /tmp. Removed when the `await using` scope ends.
 */
export function hostDir(prefix = 'escape-'): Promise<TempDir> {
  return tempDir(prefix, path.join(homedir(), '.cache', 'skate-tests'));
}
