import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { type FakeReply, fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

/**
 * Issue #22: MCP for a sub-agent's sub-agent. Each level chooses among what the level above was
 * given: a grandchild's `mcp__s__*` is its parent's grant, not the server's every tool, and stays
 * so when the server announces `tools/list_changed` (the new tool reaches the main agent only).
 */
const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');

const call = (id: string, name: string, input: Record<string, unknown>): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
  stopReason: 'tool_use',
});
const text = (t: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text: t }] });

function systemOf(request: RecordedRequest): string {
  const system = request.body?.system;
  return typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
}
const mcpTools = (request: RecordedRequest | undefined): string[] =>
  (request?.body?.tools ?? [])
    .map((tool: { name: string }) => tool.name)
    .filter((name: string) => name.startsWith('mcp__'))
    .sort();

describe('MCP tools for grandchildren', () => {
  it("a grandchild's mcp__s__* is its parent's grant, called through the server's executor, and a tools/list_changed adds nothing below the main agent", async () => {
    await using home = await hostDir('mcp-grand-home-');
    await using ws = await hostDir('mcp-grand-ws-');
    await mkdir(path.join(home.path, '.skate'), { recursive: true });
    await writeFile(
      path.join(home.path, '.skate', 'settings.json'),
      JSON.stringify({ mcpServers: { s: { command: process.execPath, args: [SLOW_SERVER] } } }),
    );
    await using api = await fakeMessagesApi([
      call('m1', 'spawn_agent', {
        task: 'NESTLEVEL-ONE: delegate',
        read_only: true,
        tools: ['mcp__s__add-tool', 'mcp__s__slow', 'spawn_agent'],
      }),
      text('done'),
    ]);
    // The grandchild's route first: its system prompt carries its parent's task too.
    api.enqueueFor(
      'NESTLEVEL-TWO',
      call('g1', 'mcp__s__add-tool', {}),
      call('g2', 'mcp__s__added', {}),
      call('g3', 'complete_task', { status: 'completed', summary: 'changed the tools' }),
    );
    api.enqueueFor(
      'NESTLEVEL-ONE',
      call('c1', 'spawn_agent', {
        task: 'NESTLEVEL-TWO: change the tools',
        read_only: true,
        tools: ['mcp__s__*'],
      }),
      call('c2', 'complete_task', { status: 'completed', summary: 'delegated' }),
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home.path,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: api.url,
    };
    delete env.SKATE_MODEL;
    delete env.XDG_CACHE_HOME;
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env,
      timeoutMs: 120_000,
    });
    const context = `${run.stderr}\n${run.stdout.slice(-3000)}`;
    expect(run.code, context).toBe(0);
    const main = api.requests.filter((r) => r.body?.messages && !systemOf(r).includes('NESTLEVEL-'));
    const child = api.requests.filter(
      (r) => systemOf(r).includes('NESTLEVEL-ONE') && !systemOf(r).includes('NESTLEVEL-TWO'),
    );
    const grandchild = api.requests.filter((r) => systemOf(r).includes('NESTLEVEL-TWO'));
    expect(grandchild, context).toHaveLength(3);
    expect(child, context).toHaveLength(2);
    const granted = ['mcp__s__add-tool', 'mcp__s__slow'];
    // At spawn, after the server added a tool, and after calling that tool anyway: the parent's grant.
    for (const request of grandchild) expect(mcpTools(request)).toEqual(granted);
    for (const request of child) expect(mcpTools(request)).toEqual(granted);
    // The server did add it: the main agent is offered it in its next request.
    expect(mcpTools(main.at(-1))).toContain('mcp__s__added');
    expect(mcpTools(main[0])).not.toContain('mcp__s__added');

    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string; output?: string; isError?: boolean });
    const result = (id: string) => lines.find((line) => line.type === 'tool_call_result' && line.id === id);
    expect(result('g1'), context).toMatchObject({ isError: false, output: 'tool added' });
    expect(result('g2'), context).toMatchObject({ isError: true });
    expect(result('g2')?.output).not.toContain('added tool ran');
  }, 150_000);
});
