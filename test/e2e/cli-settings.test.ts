import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

async function writeSettings(dir: string, content: unknown): Promise<string> {
  await mkdir(path.join(dir, '.skate'), { recursive: true });
  const file = path.join(dir, '.skate', 'settings.json');
  await writeFile(file, JSON.stringify(content));
  return file;
}

const hello = { type: 'message' as const, blocks: [{ type: 'text' as const, text: 'Hello.' }] };

describe('settings files', () => {
  it('layers ~/.skate/settings.json, the workspace file, SKATE_MODEL / ANTHROPIC_MODEL and flags; env reaches the harness', async () => {
    await using home = await hostDir('settings-home-');
    await using ws = await tempDir();
    await using api = await fakeMessagesApi([hello, hello, hello, hello, hello]);
    // The API's address comes only from the user's settings, not from the environment.
    const userFile = await writeSettings(home.path, {
      model: 'claude-from-user',
      maxTokens: 1234,
      env: { ANTHROPIC_BASE_URL: api.url },
    });
    const wsFile = await writeSettings(ws.path, { model: 'claude-from-workspace', approval: 'deny-writes' });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home.path, ANTHROPIC_API_KEY: 'sk-ant-test' };
    delete env.ANTHROPIC_BASE_URL;
    delete env.SKATE_MODEL;
    delete env.ANTHROPIC_MODEL;

    const first = await runCli(['-p', 'hi', '--workspace', ws.path, '--verbose'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`settings: ${userFile}, ${wsFile}`);
    expect(api.requests[0]!.body).toMatchObject({ model: 'claude-from-workspace', max_tokens: 1234 });

    const second = await runCli(['-p', 'hi', '--workspace', ws.path], {
      env: { ...env, SKATE_MODEL: 'claude-env' },
    });
    expect(second.code, second.stderr).toBe(0);
    expect(api.requests[1]!.body?.model).toBe('claude-env');

    const third = await runCli(
      ['-p', 'hi', '--workspace', ws.path, '--model', 'claude-flag', '--max-tokens', '99'],
      {
        env: { ...env, SKATE_MODEL: 'claude-env' },
      },
    );
    expect(third.code, third.stderr).toBe(0);
    expect(api.requests[2]!.body).toMatchObject({ model: 'claude-flag', max_tokens: 99 });

    // Claude Code's variable, for scripts written for it: over the files, under SKATE_MODEL.
    const fourth = await runCli(['-p', 'hi', '--workspace', ws.path], {
      env: { ...env, ANTHROPIC_MODEL: 'claude-anthropic-env' },
    });
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(api.requests[3]!.body?.model).toBe('claude-anthropic-env');
    const fifth = await runCli(['-p', 'hi', '--workspace', ws.path], {
      env: { ...env, ANTHROPIC_MODEL: 'claude-anthropic-env', SKATE_MODEL: 'claude-env' },
    });
    expect(fifth.code, fifth.stderr).toBe(0);
    expect(api.requests[4]!.body?.model).toBe('claude-env');
  });

  it('refuses a bad or widening workspace file with one line naming file, key and problem', async () => {
    await using home = await hostDir('settings-home-');
    await using ws = await tempDir();
    const env = cliEnv({ home: home.path, api: 'http://127.0.0.1:9' });
    for (const [content, expected] of [
      [{ maxTurns: 'many' }, /^skate: settings: \S+settings\.json: maxTurns: .*number/],
      [{ policy: 'full' }, /^skate: settings: \S+settings\.json: policy: "full" is wider than "execute"/],
      [{ network: 'on' }, /^skate: settings: \S+settings\.json: network: "on" would turn on the network/],
    ] as const) {
      const file = await writeSettings(ws.path, content);
      const result = await runCli(['-p', 'hi', '--workspace', ws.path], { env });
      expect(result.code, JSON.stringify(content)).toBe(2);
      expect(result.stderr).toMatch(expected);
      expect(result.stderr).toContain(file);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
    }
  });
});
