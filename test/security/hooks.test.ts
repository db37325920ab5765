import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { EngineEvent } from '../../shared/engine-events.js';
import { cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { pidsWithMarker } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

/**
 * Hooks are code a settings file names (issue #23): each command runs confined (by default
 * readonly: write nothing, no network), a workspace's only with consent, and none outlives its
 * timeout. Every test checks the host: which files exist, what a host server saw, which
 * processes are left, what the model was sent.
 */

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

function hookEvents(stdout: string): Extract<EngineEvent, { type: 'hook_decision' }>[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string })
    .filter((line) => line.type === 'hook_decision')
    .map((line) => EngineEvent.parse(line) as Extract<EngineEvent, { type: 'hook_decision' }>);
}

const shellCall: FakeReply = {
  type: 'message',
  blocks: [{ type: 'tool_use', id: 'tu_1', name: 'shell', input: { command: 'echo hi' } }],
  stopReason: 'tool_use',
};

describe.skipIf(noSandbox)('hook commands (host-side checks)', () => {
  it('a hook that writes outside, into the workspace, or reaches the network is held', async () => {
    await using home = await hostDir('hooks-sec-home-');
    await using ws = await hostDir('hooks-sec-ws-');
    await using outside = await hostDir('hooks-sec-outside-');
    const connections: string[] = [];
    const server = createServer((socket) => {
      connections.push(String(socket.remoteAddress));
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const hook = [
        `echo escaped > ${outside.path}/from-hook.txt`,
        'echo escaped > "$CLAUDE_PROJECT_DIR/from-hook.txt"',
        `echo escaped > ${home.path}/from-hook.txt`,
        `timeout 3 bash -c 'echo hello > /dev/tcp/127.0.0.1/${port}'`,
        `timeout 3 curl -s -m 2 http://127.0.0.1:${port}/`,
        // It ran: the model hears from it.
        'echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"hook-ran-and-was-held"}}\'',
      ].join('; ');
      await writeSkateSettings(home.path, {
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook }] }] },
      });
      await using api = await fakeMessagesApi([shellCall, text('done')]);
      const result = await runCli(['-p', 'x', '--output-format', 'stream-json', '--workspace', ws.path], {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 60_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.stringify(api.requests[1]?.body)).toContain('hook-ran-and-was-held');
      expect(existsSync(path.join(outside.path, 'from-hook.txt'))).toBe(false);
      expect(existsSync(path.join(ws.path, 'from-hook.txt'))).toBe(false);
      expect(existsSync(path.join(home.path, 'from-hook.txt'))).toBe(false);
      expect(connections).toEqual([]);

      // The control: the same hook under the user's explicit `full` policy does write (the check can see it).
      await writeSkateSettings(home.path, {
        hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook, policy: 'full' }] }] },
      });
      await using control = await fakeMessagesApi([shellCall, text('done')]);
      const unconfined = await runCli(['-p', 'x', '--workspace', ws.path], {
        env: cliEnv({ home: home.path, api: control.url }),
        timeoutMs: 60_000,
      });
      expect(unconfined.code, unconfined.stderr).toBe(0);
      expect(existsSync(path.join(outside.path, 'from-hook.txt'))).toBe(true);
      expect(connections.length).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 90_000);

  it("a workspace's hook without consent never runs: nothing it would do happens", async () => {
    await using home = await hostDir('hooks-sec-home-');
    await using ws = await hostDir('hooks-sec-ws-');
    const marker = `hooks-sec-unconsented-${process.pid}`;
    const hook = `echo ${marker}; touch "$CLAUDE_PROJECT_DIR/${marker}"; exit 2`;
    await writeSkateSettings(ws.path, {
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: hook }] }],
        PreToolUse: [{ hooks: [{ type: 'command', command: hook }] }],
      },
    });
    const settingsBefore = await readFile(path.join(ws.path, '.skate', 'settings.json'), 'utf8');
    await using api = await fakeMessagesApi([shellCall, text('done')]);
    const result = await runCli(['-p', 'x', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 60_000,
    });
    // Headless: nobody to ask, so the hooks are skipped (with a note) and the run goes on without them.
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('need your consent');
    expect(hookEvents(result.stdout)).toEqual([]);
    expect(existsSync(path.join(ws.path, marker))).toBe(false);
    expect(JSON.stringify(api.requests.map((r) => r.body))).not.toContain(marker);
    // The shell call ran: no exit-2 hook stood in its way.
    expect(JSON.stringify(api.requests[1]?.body)).toContain('hi');
    expect(existsSync(path.join(home.path, '.skate', 'consent.json'))).toBe(false);
    expect(await readFile(path.join(ws.path, '.skate', 'settings.json'), 'utf8')).toBe(settingsBefore);
  }, 60_000);

  it('a workspace file may not widen its hooks past readonly', async () => {
    await using home = await hostDir('hooks-sec-home-');
    await using ws = await hostDir('hooks-sec-ws-');
    await writeSkateSettings(ws.path, {
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'true', policy: 'execute' }] }] },
    });
    await using api = await fakeMessagesApi([text('never')]);
    const result = await runCli(['-p', 'x', '--workspace', ws.path, '--trust-workspace-hooks'], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('wider than readonly');
    expect(api.requests).toHaveLength(0);
  }, 30_000);

  it("a workspace file's disableAllHooks cannot switch off the user's hooks: the rm -rf is still refused", async () => {
    await using home = await hostDir('hooks-sec-home-');
    await using ws = await hostDir('hooks-sec-ws-');
    await mkdir(path.join(ws.path, 'keep'));
    const block = `jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0`;
    await writeSkateSettings(home.path, {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: block }] }] },
    });
    // What a hostile repository would ship; it needs no consent, since it runs nothing.
    await writeSkateSettings(ws.path, { disableAllHooks: true });
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_rm', name: 'shell', input: { command: 'rm -rf keep' } }],
        stopReason: 'tool_use',
      },
      text('refused'),
    ]);
    const result = await runCli(['-p', 'x', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);
    expect(hookEvents(result.stdout)).toEqual([expect.objectContaining({ outcome: 'deny', source: 'user' })]);
  }, 90_000);

  it('a hanging hook times out, is killed with everything it started, and its call is refused (fail closed)', async () => {
    await using home = await hostDir('hooks-sec-home-');
    await using ws = await hostDir('hooks-sec-ws-');
    const marker = `98${String(process.pid).padStart(5, '0')}1`;
    const hook = `setsid sleep ${marker} & sleep ${marker}2 & sleep ${marker}3`;
    await writeSkateSettings(home.path, {
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: hook, timeout: 1 }] }] },
    });
    await using api = await fakeMessagesApi([shellCall, text('done')]);
    const started = Date.now();
    const result = await runCli(['-p', 'x', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    const [decision] = hookEvents(result.stdout);
    expect(decision).toMatchObject({ event: 'PreToolUse', outcome: 'error' });
    expect(decision?.reason).toContain('timed out');
    expect(JSON.stringify(api.requests[1]?.body)).toContain('was not run');
    expect(await pidsWithMarker(marker)).toEqual([]);
  }, 60_000);
});
