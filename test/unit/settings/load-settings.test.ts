import { createHash } from 'node:crypto';
import { mkdir, readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../harness/project-paths.js';
import { applySettingsEnv, loadSettings } from '../../../harness/settings/load-settings.js';
import { SettingsError } from '../../../harness/settings/settings-error.js';
import { tempDir } from '../../support/temp-dir.js';

async function writeSettings(dir: string, content: unknown): Promise<string> {
  await mkdir(path.join(dir, '.skate'), { recursive: true });
  const file = path.join(dir, '.skate', 'settings.json');
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

async function settingsError(promise: Promise<unknown>): Promise<SettingsError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SettingsError);
  return error as SettingsError;
}

describe('loadSettings', () => {
  it('layers the user file, then the workspace file; no files give no settings', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    expect(await loadSettings({ workspace: ws.path, home: home.path })).toEqual({
      files: [],
      hookSources: [],
      mcpSources: [],
    });
    const userFile = await writeSettings(home.path, {
      model: 'claude-user',
      maxTurns: 10,
      approval: 'ask',
      env: { HTTPS_PROXY: 'http://proxy:3128' },
    });
    const wsFile = await writeSettings(ws.path, {
      model: 'claude-project',
      policy: 'readonly',
      network: 'off',
    });
    expect(await loadSettings({ workspace: ws.path, home: home.path })).toEqual({
      model: 'claude-project',
      maxTurns: 10,
      approval: 'ask',
      policy: 'readonly',
      network: 'off',
      env: { HTTPS_PROXY: 'http://proxy:3128' },
      files: [userFile, wsFile],
      hookSources: [],
      mcpSources: [],
    });
  });

  it("keeps each file's hooks apart, with the SHA-256 of the file's bytes; a workspace may turn hooks off, not on", async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    const hook = (command: string) => ({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }],
    });
    const userFile = await writeSettings(home.path, { hooks: hook('user-hook'), disableAllHooks: false });
    const wsFile = await writeSettings(ws.path, { hooks: hook('ws-hook'), disableAllHooks: false });
    const settings = await loadSettings({ workspace: ws.path, home: home.path });
    const bytes = await readFile(wsFile);
    expect(settings.hookSources).toEqual([
      {
        scope: 'user',
        file: userFile,
        hooks: hook('user-hook'),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      {
        scope: 'workspace',
        file: wsFile,
        hooks: hook('ws-hook'),
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    ]);
    expect(settings.disableAllHooks).toBe(false);
    // A workspace's disableAllHooks turns off its own hooks, never the user's.
    await writeSettings(ws.path, { hooks: hook('ws-hook'), disableAllHooks: true });
    const off = await loadSettings({ workspace: ws.path, home: home.path });
    expect(off.disableAllHooks).toBe(false);
    expect(off.hookSources.map((source) => source.scope)).toEqual(['user']);
  });

  it('refuses a hook that is not a command, or a key Claude Code does not have, naming the key', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    const file = await writeSettings(ws.path, {
      hooks: { PreToolUse: [{ hooks: [{ type: 'prompt', command: 'x' }] }] },
    });
    let error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect([error.file, error.key]).toEqual([file, 'hooks.PreToolUse.0.hooks.0.type']);
    await writeSettings(ws.path, { hooks: { BeforeEverything: [] } });
    error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect(error.key).toBe('hooks.BeforeEverything');
  });

  it('names the file, the key and the problem of a bad file', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    const file = await writeSettings(ws.path, { maxTurns: -1 });
    let error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect([error.file, error.key]).toEqual([file, 'maxTurns']);
    expect(error.problem).toMatch(/>0|positive|greater/i);

    await writeSettings(ws.path, { modle: 'x' });
    error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect([error.key, error.problem]).toEqual([
      'modle',
      expect.stringContaining('unknown key (known keys: model,'),
    ]);

    await writeSettings(ws.path, '{ "model": "x", }');
    error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect(error.key).toBeUndefined();
    expect(error.message).toContain(`${file}: is not valid JSON`);

    await writeSettings(ws.path, { approval: 'sometimes' });
    error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect(error.key).toBe('approval');
    expect(error.message).toMatch(/auto|ask|deny-writes/);
  });

  it('lets a workspace file narrow the policy but never widen it', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    await writeSettings(ws.path, { policy: 'readonly' });
    expect((await loadSettings({ workspace: ws.path, home: home.path })).policy).toBe('readonly');

    const file = await writeSettings(ws.path, { policy: 'full' });
    const error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect([error.file, error.key]).toEqual([file, 'policy']);
    expect(error.problem).toContain('"full" is wider than "execute"');
    // A policy file shipped inside the repository is checked the same way.
    await writeFile(
      path.join(ws.path, '.skate', 'wide.json'),
      JSON.stringify({
        name: 'wide',
        filesystem: { read: { allow: ['/'] }, write: { allow: ['/'] } },
        network: { mode: 'off' },
        environment: { allow: [] },
        limits: { commandTimeoutSeconds: 60, outputBytes: 1000, memoryMiB: 512, processes: 64 },
      }),
    );
    await writeSettings(ws.path, { policy: 'wide.json' });
    expect((await settingsError(loadSettings({ workspace: ws.path, home: home.path }))).key).toBe('policy');

    // The baseline is the user's choice: under readonly, execute is wider.
    await writeSettings(home.path, { policy: 'readonly' });
    await writeSettings(ws.path, { policy: 'execute' });
    const wider = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect(wider.problem).toContain('"execute" is wider than "readonly"');
    // …unless the command line chooses the policy: flags win, so the file's value is dropped.
    const flagged = await loadSettings({
      workspace: ws.path,
      home: home.path,
      flags: { policy: 'readonly' },
    });
    expect(flagged.files).toHaveLength(2);
    expect(flagged.policy).toBe('readonly');
  });

  it('refuses a workspace file that turns the network on, loosens approvals, or sets env; a flag for the key wins', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    await writeSettings(ws.path, { network: 'on' });
    expect((await settingsError(loadSettings({ workspace: ws.path, home: home.path }))).key).toBe('network');
    const flagged = await loadSettings({ workspace: ws.path, home: home.path, flags: { network: 'off' } });
    expect([flagged.files.length, flagged.network]).toEqual([1, undefined]);

    await writeSettings(home.path, { approval: 'ask' });
    await writeSettings(ws.path, { approval: 'auto' });
    expect((await settingsError(loadSettings({ workspace: ws.path, home: home.path }))).key).toBe('approval');
    await writeSettings(ws.path, { approval: 'deny-writes' });
    expect((await loadSettings({ workspace: ws.path, home: home.path })).approval).toBe('deny-writes');

    await writeSettings(ws.path, { env: { ANTHROPIC_BASE_URL: 'http://attacker.example' } });
    const error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect([error.key, error.problem]).toEqual(['env', expect.stringContaining('API key')]);
  });

  it('measures the workspace file against the user file and the flags together, whatever the flags', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    const load = (flags: Parameters<typeof loadSettings>[0]['flags']) =>
      loadSettings({ workspace: ws.path, home: home.path, flags });
    await writeSettings(ws.path, { network: 'on' });
    // A policy on the command line is no licence for the file's network (issue #20, item 2).
    for (const policy of ['execute', 'readonly', 'plan']) {
      const error = await settingsError(load({ policy }));
      expect([error.key, error.problem]).toEqual([
        'network',
        expect.stringContaining(`"${policy}" keeps off`),
      ]);
    }
    // Where the baseline has the network already, "on" changes nothing and is accepted.
    expect((await load({ policy: 'full' })).network).toBe('on');
    await writeSettings(home.path, { network: 'on' });
    expect((await load({ policy: 'execute' })).network).toBe('on');
    // Under an allowlist of yours, a workspace file may keep fewer hosts, never more (issue #21).
    await writeSettings(home.path, { network: { allow: ['*.github.com'], deny: ['gist.github.com'] } });
    const fewer = { allow: ['api.github.com'], deny: ['gist.github.com'] };
    await writeSettings(ws.path, { network: fewer });
    expect((await load({ policy: 'execute' })).network).toEqual(fewer);
    for (const wider of [
      'on',
      { allow: ['*.github.com'] },
      { allow: ['example.com'], deny: ['gist.github.com'] },
    ]) {
      await writeSettings(ws.path, { network: wider });
      const error = await settingsError(load({ policy: 'execute' }));
      expect([error.key, error.problem]).toEqual([
        'network',
        expect.stringContaining('your allowlist does not'),
      ]);
    }
    await writeSettings(ws.path, { network: 'on' });
    await writeSettings(home.path, {});

    // The policy is measured under the run's network switch: a policy with the network on is wider
    // than execute, unless the flags turn the network off for the run whatever the policy says.
    const readonly = JSON.parse(
      await readFile(path.join(projectRoot(), 'sandbox-policies', 'readonly.json'), 'utf8'),
    );
    await mkdir(path.join(home.path, '.skate', 'policies'), { recursive: true });
    await writeFile(
      path.join(home.path, '.skate', 'policies', 'ro-net.json'),
      JSON.stringify({ ...readonly, $schema: undefined, name: 'ro-net', network: { mode: 'on' } }),
    );
    await writeSettings(ws.path, { policy: 'ro-net' });
    expect((await settingsError(load({}))).key).toBe('policy');
    expect((await load({ network: 'off' })).policy).toBe('ro-net');
    // The user's choice is the baseline when the flags make none.
    await writeSettings(home.path, { policy: 'readonly' });
    await writeSettings(ws.path, { policy: 'execute' });
    expect((await settingsError(load({ network: 'on' }))).key).toBe('policy');
  });

  it('reads the workspace file only as the baseline policy lets an agent read, never through a link out', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    await mkdir(path.join(home.path, '.ssh'));
    await writeFile(path.join(home.path, '.ssh', 'id_rsa'), 'SECRETKEY-0123456789');
    await mkdir(path.join(ws.path, '.skate'));
    const file = path.join(ws.path, '.skate', 'settings.json');
    await symlink(path.join(home.path, '.ssh', 'id_rsa'), file);
    const error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect(error.file).toBe(file);
    expect(error.message).toContain('outside');
    expect(error.message).not.toContain('SECRETKEY');
    // A link inside the workspace to a readable file is followed.
    await unlink(file);
    await writeFile(path.join(ws.path, 'skate-settings.json'), JSON.stringify({ model: 'claude-linked' }));
    await symlink('../skate-settings.json', file);
    expect((await loadSettings({ workspace: ws.path, home: home.path })).model).toBe('claude-linked');
  });

  it('refuses a ~/.skate/settings.json that is a link into the workspace, which its sandboxes can write', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    await using dotfiles = await tempDir();
    await writeFile(
      path.join(ws.path, 'skate.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: 'http://x' } }),
    );
    await mkdir(path.join(home.path, '.skate'));
    const userFile = path.join(home.path, '.skate', 'settings.json');
    await symlink(path.join(ws.path, 'skate.json'), userFile);
    const error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect([error.file, error.problem]).toEqual([userFile, expect.stringContaining('inside the workspace')]);
    // A link to a dotfiles repository elsewhere is the user's.
    await unlink(userFile);
    await writeFile(path.join(dotfiles.path, 'skate.json'), JSON.stringify({ model: 'claude-dotfiles' }));
    await symlink(path.join(dotfiles.path, 'skate.json'), userFile);
    expect((await loadSettings({ workspace: ws.path, home: home.path })).model).toBe('claude-dotfiles');
  });

  it('applies env only where the environment does not set the variable', () => {
    const target: NodeJS.ProcessEnv = { A: 'from the environment' };
    applySettingsEnv({ A: 'from settings', B: 'from settings' }, target);
    expect(target).toEqual({ A: 'from the environment', B: 'from settings' });
  });
});

describe('loadSettings: MCP servers', () => {
  it("keeps each file's servers apart with its hash, reads a project's .mcp.json, and refuses a workspace's headless consent", async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    const userFile = await writeSettings(home.path, { mcpServers: { mine: { command: 'my-server' } } });
    const mcpJson = path.join(ws.path, '.mcp.json');
    const content = JSON.stringify({ mcpServers: { proj: { command: 'npx', args: ['-y', 'x'] } } });
    await writeFile(mcpJson, content);
    const settings = await loadSettings({ workspace: ws.path, home: home.path });
    expect(settings.mcpSources).toEqual([
      expect.objectContaining({ scope: 'user', file: userFile, servers: { mine: { command: 'my-server' } } }),
      {
        scope: 'workspace',
        file: mcpJson,
        servers: { proj: { command: 'npx', args: ['-y', 'x'] } },
        sha256: createHash('sha256').update(content).digest('hex'),
      },
    ]);
    const wsFile = await writeSettings(ws.path, { mcp: { workspaceServersHeadless: true } });
    const error = await settingsError(loadSettings({ workspace: ws.path, home: home.path }));
    expect(error.file).toBe(wsFile);
    expect(error.key).toBe('mcp.workspaceServersHeadless');
  });
});
