import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { eventually, pidsWithMarker } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * Runs the CLI with a stdout nobody reads (`skate … | head` once head has gone): the pipe's read
 * end is closed before the CLI writes, so its first write fails with EPIPE.
 */
function runWithClosedStdout(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [distPath('cli', 'skate.js'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`skate ${args.join(' ')} did not end with its stdout closed\n${stderr}`));
    }, 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** What a crash on EPIPE printed: Node's unhandled 'error' event and a stack. */
function expectQuiet(stderr: string): void {
  expect(stderr).not.toMatch(/EPIPE|Unhandled 'error'|^\s+at /m);
}

describe('a closed stdout ends the CLI quietly', () => {
  it.each([[['--help']], [['--version']], [['tools']], [['policy', 'show', 'execute']]])(
    'skate %j exits 141 without a stack trace',
    async (args) => {
      const result = await runWithClosedStdout(args);
      expectQuiet(result.stderr);
      expect(result.code).toBe(141);
    },
  );

  it('skate tool: the result has no reader, the CLI exits 141 and leaves no executor behind', async () => {
    await using dir = await tempDir();
    const result = await runWithClosedStdout([
      'tool',
      'list_dir',
      '--input',
      '{"path":"."}',
      '--workspace',
      dir.path,
    ]);
    expectQuiet(result.stderr);
    expect(result.code).toBe(141);
    expect(await eventually(async () => (await pidsWithMarker(dir.path)).length === 0)).toBe(true);
  });

  it.each(['text', 'json', 'stream-json'])(
    'skate -p --output-format %s: stops the run (text and stream-json at once) and exits 141',
    async (format) => {
      await using dir = await tempDir();
      // Text and stream-json write as the reply streams: a long, slow one (a minute) shows the run
      // stopped. json writes once, at the end.
      const streams = format !== 'json';
      await using api = await fakeMessagesApi([
        {
          type: 'message',
          blocks: [{ type: 'text', text: streams ? 'word '.repeat(200) : 'done' }],
          ...(streams && { chunkDelayMs: 200 }),
        },
      ]);
      const started = performance.now();
      const result = await runWithClosedStdout(
        ['-p', 'talk', '--output-format', format, '--workspace', dir.path, '--no-session'],
        { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test-key', ANTHROPIC_BASE_URL: api.url },
      );
      expectQuiet(result.stderr);
      expect(result.code, result.stderr).toBe(141);
      if (streams) {
        // The model's reply was cut off: the run was interrupted, not read to its end.
        expect(await api.requests[0]?.finished).toBe('client_closed');
        expect(performance.now() - started).toBeLessThan(15_000);
      }
      expect(await eventually(async () => (await pidsWithMarker(dir.path)).length === 0)).toBe(true);
    },
    30_000,
  );
});
