import { mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const shellCall = (command: string): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id: 'tu_1', name: 'shell', input: { command } }],
  stopReason: 'tool_use',
});
const done: FakeReply = { type: 'message', blocks: [{ type: 'text', text: 'Done.' }] };

function env(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: baseUrl };
}

/** The tool result the model was sent in request `index`. */
function told(
  api: { requests: readonly { body?: { messages: unknown[] } | undefined }[] },
  index: number,
): string {
  return JSON.stringify(api.requests[index]?.body?.messages.at(-1));
}

describe('per-run policy changes: --add-dir and --network', () => {
  it('--add-dir makes another directory writable for one run, with the workspace protections inside it', async () => {
    await using ws = await tempDir();
    await using extra = await hostDir('add-dir-');
    await mkdir(path.join(extra.path, '.git'));
    const command = `echo added > ${extra.path}/added.txt; echo hook > ${extra.path}/.git/hook 2>&1; true`;
    await using api = await fakeMessagesApi([shellCall(command), done, shellCall(command), done]);

    const without = await runCli(['-p', 'write', '--workspace', ws.path], { env: env(api.url) });
    expect(without.code, without.stderr).toBe(0);
    await expect(stat(path.join(extra.path, 'added.txt'))).rejects.toThrow(/ENOENT/);

    const result = await runCli(['-p', 'write', '--workspace', ws.path, '--add-dir', extra.path], {
      env: env(api.url),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`also writable for this run: ${extra.path}`);
    expect(await readFile(path.join(extra.path, 'added.txt'), 'utf8')).toBe('added\n');
    // .git is protected in the workspace, so it is inside the added directory too.
    await expect(stat(path.join(extra.path, '.git', 'hook'))).rejects.toThrow(/ENOENT/);
    expect(told(api, 3)).toContain('Read-only file system');
  });

  it('--network on gives one run the network its policy keeps off, and says so', async () => {
    await using ws = await tempDir();
    const command = "awk -F: 'NR>2{print $1}' /proc/net/dev | tr -d ' ' | sort | tr '\\n' ,";
    await using api = await fakeMessagesApi([shellCall(command), done, shellCall(command), done]);
    const off = await runCli(['-p', 'net', '--workspace', ws.path], { env: env(api.url) });
    expect(off.code, off.stderr).toBe(0);
    expect(told(api, 1)).toMatch(/\blo,/);
    expect(told(api, 1)).not.toMatch(/eth0|ens|enp/);

    const on = await runCli(['-p', 'net', '--workspace', ws.path, '--network', 'on'], { env: env(api.url) });
    expect(on.code, on.stderr).toBe(0);
    expect(on.stderr).toContain('policy execute · network on for this run');
    const interfaces =
      /"([a-z0-9,]+)\\n\[exit code 0\]/.exec(told(api, 3))?.[1]?.split(',').filter(Boolean) ?? [];
    expect(interfaces.length, told(api, 3)).toBeGreaterThan(1);
  });

  it('--network HOSTS runs behind the allowlist proxy, and each refusal is a network_denied event', async () => {
    await using ws = await tempDir();
    const command = 'curl -sS --max-time 5 http://refused.example.com/ 2>&1; env | grep -c _PROXY=';
    await using api = await fakeMessagesApi([shellCall(command), done]);
    const result = await runCli(
      [
        '-p',
        'fetch',
        '--workspace',
        ws.path,
        '--network',
        'registry.example.com,*.github.example.com,!gist.github.example.com',
        '--output-format',
        'stream-json',
      ],
      { env: env(api.url) },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      type: 'system',
      network: { allow: ['*.github.example.com', 'registry.example.com'], deny: ['gist.github.example.com'] },
    });
    const denied = lines.find((line) => line.type === 'network_denied');
    expect(denied).toMatchObject({
      host: 'refused.example.com',
      port: 80,
      reason: 'not_allowed',
      command,
      callId: 'tu_1',
    });
    expect(told(api, 1)).toContain('Skate refused refused.example.com:80 (not_allowed)');
  });

  it('refuses a bad --network or --add-dir as a usage error', async () => {
    await using ws = await tempDir();
    for (const [args, message] of [
      [['--network', 'maybe'], '--network takes on, off or a comma-separated list of hosts'],
      [['--network', '*.com'], '--network takes on, off or a comma-separated list of hosts: *.com'],
      [['--network', '!evil.example.com'], 'with at least one host allowed'],
      [['--add-dir', path.join(ws.path, 'missing')], 'no such directory'],
    ] as const) {
      const result = await runCli(['-p', 'x', '--workspace', ws.path, ...args], {
        env: env('http://127.0.0.1:9'),
      });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });
});
