import { homedir } from 'node:os';
import path from 'node:path';

/**
 * `$XDG_CACHE_HOME/skate` (or `~/.cache/skate`): what the harness keeps per user and machine,
 * the sandbox probe's verdict and the CLI's compiled code among it. The harness runs that code
 * outside any sandbox, so every executor sandbox keeps this directory read-only (prepare-sandbox.ts).
 */
export function skateCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : path.join(homedir(), '.cache');
  return path.join(base, 'skate');
}
