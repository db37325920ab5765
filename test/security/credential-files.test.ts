import { randomBytes } from 'node:crypto';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliWorld, textReply, toolCall } from '../support/cli-world.js';

/**
 * Your settings file holds credentials only the harness reads (its `env`, providers' headers, MCP
 * servers' `env` and headers). A hostile model that asks a command to read it, under every policy
 * that builds a sandbox (all but `full`, which runs unconfined), finds it empty or unreadable, even
 * where the policy reads the whole file system (execute, readonly): asserted on what came back to the
 * model and on the host's file, which stays whole.
 */
describe('~/.skate/settings.json in a sandbox', () => {
  const secret = `settings-secret-${randomBytes(6).toString('hex')}`;
  const settings = JSON.stringify({ env: { MY_GATEWAY_KEY: secret } });
  // Masked like a denied file: empty where the kernel lets it be opened, else refused.
  const UNREADABLE = /size=0|settings\.json: Permission denied/;
  const read = 'cat ~/.skate/settings.json; echo "size=$(wc -c < ~/.skate/settings.json)"';

  for (const policy of ['execute', 'readonly'] as const) {
    it(`reads as empty or unreadable under --policy ${policy}, the host's file unchanged`, async () => {
      await using world = await cliWorld({
        home: true,
        prefix: 'settings-hidden-',
        replies: [toolCall('t1', 'shell', { command: read }), textReply('Read.')],
      });
      const file = path.join(world.home!, '.skate', 'settings.json');
      await mkdir(path.dirname(file));
      await writeFile(file, settings);
      const result = await world.skate(
        [
          '-p',
          'read the settings',
          '--policy',
          policy,
          '--workspace',
          world.ws,
          '--output-format',
          'stream-json',
        ],
        { timeoutMs: 60_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      const output = toolOutput(result.stdout);
      expect(output).toMatch(UNREADABLE);
      expect(output).not.toContain(secret);
      expect(JSON.stringify(world.api.requests.map((r) => r.body))).not.toContain(secret);
      expect(result.stdout + result.stderr).not.toContain(secret);
      expect(await readFile(file, 'utf8')).toBe(settings);
    });
  }

  it('is hidden where a link leads (a settings file kept in a dotfiles repository)', async () => {
    await using world = await cliWorld({
      home: true,
      prefix: 'settings-link-',
      replies: [
        toolCall('t1', 'shell', {
          command: `${read}; echo "real=$(wc -c < ~/dotfiles/skate.json)"; cat ~/dotfiles/skate.json`,
        }),
        textReply('Read.'),
      ],
    });
    const real = path.join(world.home!, 'dotfiles', 'skate.json');
    await mkdir(path.dirname(real));
    await writeFile(real, settings);
    await mkdir(path.join(world.home!, '.skate'));
    await symlink(real, path.join(world.home!, '.skate', 'settings.json'));
    const result = await world.skate(
      [
        '-p',
        'read the settings',
        '--policy',
        'execute',
        '--workspace',
        world.ws,
        '--output-format',
        'stream-json',
      ],
      { timeoutMs: 60_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const output = toolOutput(result.stdout);
    expect(output).toMatch(UNREADABLE);
    expect(output).toMatch(/real=0|skate\.json: Permission denied/);
    expect(output).not.toContain(secret);
    expect(JSON.stringify(world.api.requests.map((r) => r.body))).not.toContain(secret);
    expect(await readFile(real, 'utf8')).toBe(settings);
  });
});

/** The shell call's output from a `stream-json` run. */
function toolOutput(stdout: string): string {
  const event = stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; output?: string })
    .find((e) => e.type === 'tool_call_result');
  expect(event?.output, stdout).toBeDefined();
  return event!.output!;
}

/**
 * Other tools' logins in your home (Claude Code, Codex, Gemini CLI, OpenCode) and the classic ones:
 * the shipped restricted policies deny them, so a hostile model's command reads none of them.
 */
describe('credential files in your home under the shipped policies', () => {
  const secret = `home-secret-${randomBytes(6).toString('hex')}`;
  const files = [
    '.claude.json',
    '.claude/.credentials.json',
    '.codex/auth.json',
    '.gemini/oauth_creds.json',
    '.local/share/opencode/auth.json',
    '.ssh/id_ed25519',
    '.aws/credentials',
    '.git-credentials',
  ];

  for (const policy of ['execute', 'plan'] as const) {
    it(`none is readable under --policy ${policy}; each stays whole on the host`, async () => {
      await using world = await cliWorld({
        home: true,
        prefix: 'home-credentials-',
        replies: [
          toolCall('t1', 'shell', {
            command: `${files.map((f) => `cat ~/${f}`).join('; ')}; echo done`,
          }),
          textReply('Read.'),
        ],
      });
      for (const file of files) {
        await mkdir(path.dirname(path.join(world.home!, file)), { recursive: true });
        await writeFile(path.join(world.home!, file), `${file}=${secret}\n`);
      }
      const result = await world.skate(
        ['-p', 'read them', '--policy', policy, '--workspace', world.ws, '--output-format', 'stream-json'],
        { timeoutMs: 60_000 },
      );
      expect(result.code, result.stderr).toBe(0);
      const output = toolOutput(result.stdout);
      expect(output).toContain('done');
      expect(output).not.toContain(secret);
      expect(JSON.stringify(world.api.requests.map((r) => r.body))).not.toContain(secret);
      for (const file of files) {
        expect(await readFile(path.join(world.home!, file), 'utf8')).toBe(`${file}=${secret}\n`);
      }
    });
  }
});
