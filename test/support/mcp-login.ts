import { spawn } from 'node:child_process';
import { distPath } from '../../harness/project-paths.js';
import { cliEnv } from './cli-world.js';
import type { CliResult } from './run-cli.js';

/**
 * `skate mcp login NAME` as a person runs it: the real CLI as a subprocess; once it prints the
 * authorization URL, `browser` plays the person's browser with it.
 */
export function loginViaCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  browser: (authorizationUrl: string) => Promise<unknown>,
  timeoutMs = 60_000,
): Promise<CliResult & { authorizationUrl?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [distPath('cli', 'skate.js'), 'mcp', 'login', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let authorizationUrl: string | undefined;
    let browsing: Promise<unknown> = Promise.resolve();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /\n {2}(https?:\/\/\S+)\n/.exec(stderr);
      if (match?.[1] && authorizationUrl === undefined) {
        authorizationUrl = match[1];
        browsing = browser(authorizationUrl).catch((error: unknown) => error);
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`skate mcp login timed out\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      void browsing.then(() =>
        resolve({ code, stdout, stderr, ...(authorizationUrl !== undefined && { authorizationUrl }) }),
      );
    });
  });
}

/** The CLI's environment for a login test: a HOME of its own, and no browser (the test is the browser). */
export function loginEnv(home: string, api = 'http://127.0.0.1:9'): NodeJS.ProcessEnv {
  const env = cliEnv({ home, api });
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  return env;
}
