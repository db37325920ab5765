import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { startAcpEditor } from '../support/acp-editor.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

const calls = (...named: [string, string, Record<string, unknown>][]): FakeReply => ({
  type: 'message',
  blocks: named.map(([id, name, input]) => ({ type: 'tool_use' as const, id, name, input })),
  stopReason: 'tool_use',
});
const reply = (text: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text }] });

async function settingsFile(workspace: string, settings: unknown): Promise<void> {
  await mkdir(path.join(workspace, '.skate'), { recursive: true });
  await writeFile(path.join(workspace, '.skate', 'settings.json'), JSON.stringify(settings));
}

async function agentFile(dir: string, name: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, `${name}.md`),
    `---\nname: ${name}\ndescription: The ${name} agent.\n---\nBe ${name}.\n`,
  );
}

// Workspaces outside /tmp, as in acp.test.ts: sandboxes get a private /tmp.
describe("skate acp takes each session's settings from its own workspace", () => {
  it("policy, hooks and agent files are the session workspace's, not those of the directory skate acp started in", async () => {
    await using home = await hostDir('acp-ws-settings-home-');
    // A: where the editor starts skate acp; its hook refuses every shell command, with consent.
    await using a = await hostDir('acp-ws-settings-a-');
    // B: a narrower policy of its own (read-only) and agent files of its own.
    await using b = await hostDir('acp-ws-settings-b-');
    // C: no settings at all.
    await using c = await hostDir('acp-ws-settings-c-');
    await settingsFile(a.path, {
      hooks: {
        PreToolUse: [
          { matcher: 'shell', hooks: [{ type: 'command', command: 'echo "A refuses shell" >&2; exit 2' }] },
        ],
      },
    });
    await agentFile(path.join(a.path, '.skate', 'agents'), 'alpha-agent');
    await settingsFile(b.path, { policy: 'readonly' });
    await agentFile(path.join(b.path, '.claude', 'agents'), 'beta-agent');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home.path,
      ANTHROPIC_API_KEY: 'sk-ant-test-key-for-acp-workspace-settings',
    };
    delete env.XDG_CACHE_HOME;
    delete env.SKATE_MODEL;
    // Consent to A's hooks as the README says an editor's user gives it: `skate hooks trust`.
    const trusted = await runCli(['hooks', 'trust', '--workspace', a.path], { env });
    expect(trusted.code, trusted.stderr).toBe(0);

    await using api = await fakeMessagesApi([
      calls(
        ['a1', 'write_file', { path: path.join(a.path, 'a.txt'), content: 'A allows writes' }],
        ['a2', 'shell', { command: `touch ${path.join(a.path, 'a-shell.txt')}` }],
      ),
      reply('A done.'),
      calls(['b1', 'write_file', { path: path.join(b.path, 'b.txt'), content: 'B is read-only' }]),
      reply('B done.'),
      calls(['c1', 'shell', { command: `touch ${path.join(c.path, 'c-shell.txt')}` }]),
      reply('C done.'),
    ]);
    env.ANTHROPIC_BASE_URL = api.url;
    await using editor = startAcpEditor(['--approval', 'auto'], env, a.path);
    const sessions = await editor.run(async (ctx) => {
      const ids: string[] = [];
      for (const ws of [a.path, b.path, c.path]) {
        const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] });
        const done = await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'do your work' }],
        });
        expect(done.stopReason, editor.stderr()).toBe('end_turn');
        ids.push(sessionId);
      }
      return ids;
    });

    // A allows the write; A's hook refused the shell command there, so its file never appeared.
    expect(existsSync(path.join(a.path, 'a.txt')), editor.stderr()).toBe(true);
    expect(existsSync(path.join(a.path, 'a-shell.txt'))).toBe(false);
    // B's own policy (read-only) refused the write A allows: no file on the host.
    expect(existsSync(path.join(b.path, 'b.txt'))).toBe(false);
    // A's hook does not run in C: the same kind of command ran there.
    expect(existsSync(path.join(c.path, 'c-shell.txt'))).toBe(true);

    const resultOf = (index: number, id: string) =>
      (api.requests[index]?.body?.messages ?? [])
        .flatMap((message) =>
          Array.isArray(message.content)
            ? (message.content as { type: string; tool_use_id?: string; content?: unknown }[])
            : [],
        )
        .find((block) => block.tool_use_id === id);
    expect(JSON.stringify(resultOf(1, 'a2'))).toContain('A refuses shell');
    expect(resultOf(3, 'b1')).toMatchObject({ is_error: true });
    expect(JSON.stringify(resultOf(5, 'c1'))).not.toContain('A refuses shell');
    // The hook's decision was shown in A's session only.
    const hookNotices = editor.updates.filter((update) =>
      JSON.stringify(update).includes('hook PreToolUse(shell) denied it'),
    );
    expect(hookNotices.map((update) => update.sessionId)).toEqual([sessions[0]]);

    // Each session's model was offered its own workspace's agents, and only those.
    const tools = (index: number) => JSON.stringify(api.requests[index]?.body?.tools ?? []);
    expect(tools(0)).toContain('alpha-agent');
    expect(tools(0)).not.toContain('beta-agent');
    expect(tools(2)).toContain('beta-agent');
    expect(tools(2)).not.toContain('alpha-agent');
    expect(tools(4)).not.toContain('alpha-agent');
    expect(tools(4)).not.toContain('beta-agent');
  }, 120_000);
});
