import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-ant-test-key-that-must-never-leave-the-harness';
/** A self-signed certificate for `localhost` (and its key), made for these tests only. */
const TLS_DIR = path.join(import.meta.dirname, '..', 'fixtures', 'tls');
const CERT = path.join(TLS_DIR, 'localhost-cert.pem');
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

  it('speaks HTTPS to an https base URL, checking the certificate, over the connection opened during the start', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi(
      [
        {
          type: 'message',
          blocks: [{ type: 'text', text: 'over TLS' }],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      ],
      { key: readFileSync(path.join(TLS_DIR, 'localhost-key.pem')), cert: readFileSync(CERT) },
    );
    expect(api.url).toMatch(/^https:\/\/localhost:/);
    const result = await runCli(['-p', 'say it', '--workspace', dir.path], {
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: api.url,
        // The harness trusts the test certificate as it would a real CA's: verification stays on.
        NODE_EXTRA_CA_CERTS: CERT,
        SKATE_TRACE_START: '1',
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('over TLS');
    const steps = result.stderr
      .split('\n')
      .map((line) => /^skate-trace \+[\d.]+ cpu [\d.]+ (.+)$/.exec(line)?.[1])
      .filter((step) => step !== undefined);
    expect(steps.filter((step) => step === 'http: connecting')).toHaveLength(1);
    // Opened by the warm-up (the request may still find it connecting under load).
    expect(steps.indexOf('http: connecting')).toBeLessThan(steps.indexOf('cli: prompt'));
    expect(steps.indexOf('cli: prompt')).toBeLessThan(steps.indexOf('http: POST /v1/messages headers sent'));
    expect(api.requests).toHaveLength(1);
    expect(api.connections).toBe(1);
  });
});
