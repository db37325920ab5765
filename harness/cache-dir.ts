import { homedir } from 'node:os';
import path from 'node:path';

/**
 * Skate's directory in the user's cache (`$XDG_CACHE_HOME/skate`, else `~/.cache/skate`): what a
 * start can skip by remembering (the sandbox probe's verdict, executors' tool lists, the empty
 * directory masks are made of). Outside every workspace, so no shipped policy lets a sandboxed
 * command write there unless the workspace is the home directory itself.
 */
export function skateCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : path.join(homedir(), '.cache');
  return path.join(base, 'skate');
}
