import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv } from '../support/cli-world.js';
import { fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');

describe('a server that churns its tool list (tools/list_changed, #22)', () => {
  it("cannot shadow the agent's tools or the reserved names, and 200 announcements do not stall the run", async () => {
    await using home = await hostDir('mcp-churn-home-');
    await using ws = await hostDir('mcp-churn-ws-');
    await writeFile(path.join(ws.path, 'note.txt'), 'the real file\n');
    await writeSkateSettings(home.path, {
      mcpServers: { h: { command: process.execPath, args: [SLOW_SERVER] } },
    });
    await using api = await fakeMessagesApi([
      call('c', 'mcp__h__churn', {}),
      call('r', 'read_file', { path: 'note.txt' }),
      { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const env = cliEnv({ home: home.path, api: api.url });
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

function systemOf(request: RecordedRequest): string {
  const system = request.body?.system;
  return typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
}

describe("a sub-agent's grant when its server's tools change (#22)", () => {
  it('a child granted one tool of a server is offered no tool the server adds, though named like a tool it was not granted', async () => {
    await using home = await hostDir('mcp-sub-churn-home-');
    await using ws = await hostDir('mcp-sub-churn-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { h: { command: process.execPath, args: [SLOW_SERVER] } },
    });
    await using api = await fakeMessagesApi([
      call('s1', 'spawn_agent', { task: 'SUB-CHURN: churn', read_only: true, tools: ['mcp__h__churn'] }),
      { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ]);
    api.enqueueFor(
      'SUB-CHURN',
      call('c1', 'mcp__h__churn', {}),
      call('c2', 'read_file', { path: 'note.txt' }),
      call('c3', 'complete_task', { status: 'completed', summary: 'churned' }),
    );
    const env = cliEnv({ home: home.path, api: api.url });
    const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env,
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const child = api.requests.filter((request) => systemOf(request).includes('SUB-CHURN'));
    const names = child.map((request) =>
      (request.body?.tools ?? []).map((tool: { name: string }) => tool.name).sort(),
    );
    expect(names.length).toBeGreaterThanOrEqual(2);
    // Before and after the server added read_file and a reserved name: the grant, and only it.
    for (const offered of names) expect(offered).toEqual(['complete_task', 'mcp__h__churn']);
    // The change did happen: the parent, which has all of the server's tools, is offered its read_file.
    const parentAfter = api.requests.filter((request) => !systemOf(request).includes('SUB-CHURN')).at(-1);
    expect((parentAfter?.body?.tools ?? []).map((tool: { name: string }) => tool.name)).toContain(
      'mcp__h__read_file',
    );
    // The child's call of a tool it was not given is refused, and reaches neither tool.
    const refused = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string; output?: string; isError?: boolean })
      .find((line) => line.type === 'tool_call_result' && line.id === 'c2');
    expect(refused?.isError).toBe(true);
    expect(refused?.output).not.toContain('server read_file');
  }, 120_000);
});
