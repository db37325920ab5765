import { execFile } from 'node:child_process';

export interface GitRun {
  stdout: Buffer;
  stderr: string;
  /** The exit status (`git merge-file` reports its conflict count here). */
  code: number;
}

/**
 * Configuration no file may add: a worktree's files are written by a sandboxed child, and git
 * reads `.gitattributes` from the tree it works on. Without hooks, an fsmonitor, or the user's and
 * the system's configuration (where filter and diff drivers would be defined), nothing such a file
 * names can run a program on the host; only data is compared.
 */
const SAFE_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.attributesFile=/dev/null',
  '-c',
  'core.excludesFile=/dev/null',
  '-c',
  'core.autocrlf=false',
  '-c',
  'core.quotePath=false',
  '-c',
  'diff.external=',
  '-c',
  'protocol.allow=never',
];

/** The environment git runs with: no GIT_* of the caller's, no global or system configuration. */
function gitEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    ...extra,
  };
}

/**
 * Runs git on the host for the worktree machinery, never with configuration a sandbox could
 * have written (see `SAFE_CONFIG`). Resolves with the exit status; rejects only when git could
 * not be run at all, or `expectZero` and it failed.
 */
export function runGit(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; expectZero?: boolean; maxBuffer?: number } = {},
): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...SAFE_CONFIG, ...args],
      {
        cwd: options.cwd,
        env: gitEnv(options.env ?? {}),
        encoding: 'buffer',
        maxBuffer: options.maxBuffer ?? 256 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        if (error && typeof error.code !== 'number') return reject(error);
        if (code !== 0 && (options.expectZero ?? true)) {
          return reject(new Error(`git ${args[0]} failed (${code}): ${stderr.toString('utf8').trim()}`));
        }
        resolve({ stdout, stderr: stderr.toString('utf8'), code });
      },
    );
  });
}
