import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { RunResult } from '../../shared/run-result.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { eventually } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const TOKEN = 'remote-token-0123456789abcdef';

describe('an agent run against an executor served on another "host"', () => {
  it('runs tools on the served executor under its policy; the API key stays with the harness', async () => {
    await using served = await tempDir('served-');
    await using local = await tempDir('local-');
    const server = spawn(
      process.execPath,
      [
        distPath('cli', 'skate.js'),
        'executor',
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--workspace',
        served.path,
      ],
      { env: { ...process.env, SKATE_EXECUTOR_TOKEN: TOKEN }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    try {
      let log = '';
      server.stderr.on('data', (chunk) => {
        log += String(chunk);
      });
      expect(await eventually(() => /serving ws:\/\/127\.0\.0\.1:\d+/.test(log), 15_000)).toBe(true);
      const url = /serving (ws:\/\/127\.0\.0\.1:\d+)/.exec(log)![1]!;
      await using api = await fakeMessagesApi([
        {
          type: 'message',
          blocks: [
            {
              type: 'tool_use',
              id: 'tu_1',
              name: 'write_file',
              input: { path: 'remote.txt', content: 'hi\n' },
            },
          ],
          stopReason: 'tool_use',
          usage: { input_tokens: 10, output_tokens: 5 },
        },
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'Wrote it remotely.' }],
          usage: { input_tokens: 20, output_tokens: 4 },
        },
      ]);
      const result = await runCli(
        ['-p', 'write remote.txt', '--executor', url, '--output-format', 'json', '--workspace', local.path],
        {
          env: {
            ...process.env,
            ANTHROPIC_API_KEY: 'sk-ant-remote-secret',
            ANTHROPIC_BASE_URL: api.url,
            SKATE_EXECUTOR_TOKEN: TOKEN,
          },
        },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(RunResult.parse(JSON.parse(result.stdout)).finalMessage).toBe('Wrote it remotely.');
      expect(await readFile(path.join(served.path, 'remote.txt'), 'utf8')).toBe('hi\n');
      await expect(readFile(path.join(local.path, 'remote.txt'))).rejects.toThrow(/ENOENT/);
      expect(log).not.toContain('sk-ant-remote-secret');
      // The served executor ran in its own sandbox.
      expect(log).toMatch(/connection from/);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('close', resolve));
    }
  });
});
