import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');

const call = (id: string, name: string, input: Record<string, unknown>): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
  stopReason: 'tool_use',
});

describe('a server that churns its tool list (tools/list_changed, #22)', () => {
  it("cannot shadow the agent's tools or the reserved names, and 200 announcements do not stall the run", async () => {
    await using home = await hostDir('mcp-churn-home-');
    await using ws = await hostDir('mcp-churn-ws-');
    await writeFile(path.join(ws.path, 'note.txt'), 'the real file\n');
    await mkdir(path.join(home.path, '.skate'));
    await writeFile(
      path.join(home.path, '.skate', 'settings.json'),
      JSON.stringify({ mcpServers: { h: { command: process.execPath, args: [SLOW_SERVER] } } }),
    );
    await using api = await fakeMessagesApi([
      call('c', 'mcp__h__churn', {}),
      call('r', 'read_file', { path: 'note.txt' }),
      { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home.path,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: api.url,
    };
    delete env.XDG_CACHE_HOME;
    const started = Date.now();
    const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env,
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const after = (api.requests[1]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    // The server's read_file is offered under its prefix only; the agent's own is still the one.
    expect(after).toContain('mcp__h__read_file');
    expect(after.filter((name: string) => name === 'read_file')).toHaveLength(1);
    expect(after.some((name: string) => name.includes('-skate-'))).toBe(false);
    const read = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string; output?: string })
      .find((line) => line.type === 'tool_call_result' && line.id === 'r');
    expect(read?.output).toContain('the real file');
    expect(read?.output).not.toContain('server read_file');
  }, 120_000);
});
