import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-ant-test-key-that-must-never-leave-the-harness';
const MARK = 'undici-request-made';

/**
 * Loaded into a process with `--import`: writes MARK to stderr whenever Node's fetch (undici)
 * creates a request. Plain JavaScript in a data: URL, no loader.
 */
const UNDICI_WATCH = `data:text/javascript,${encodeURIComponent(
  `import { subscribe } from 'node:diagnostics_channel';
   subscribe('undici:request:create', () => process.stderr.write('${MARK}\\n'));`,
)}`;

function nodeOutput(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(stderr));
  });
}

describe('the HTTP client of a whole skate -p run', () => {
  it("sends its requests without Node's fetch (undici), which the watch would have seen", async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'text', text: 'over node:http' }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    ]);
    // The watch works: a plain fetch of the same server trips it.
    const control = await nodeOutput([
      '--import',
      UNDICI_WATCH,
      '--input-type=module',
      '-e',
      `await (await fetch(${JSON.stringify(`${api.url}/health`)})).text();`,
    ]);
    expect(control).toContain(MARK);

    const result = await runCli(['-p', 'say it', '--workspace', dir.path], {
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: api.url,
        NODE_OPTIONS: `--import=${UNDICI_WATCH}`,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('over node:http');
    expect(api.requests.filter((request) => request.path === '/v1/messages')).toHaveLength(1);
    expect(result.stderr).not.toContain(MARK);
  });
});
