import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { type FakeReply, fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

/**
 * Issue #22: a sub-agent's sub-agent chooses its MCP tools among what its parent was given, never
 * among the run's servers: a grandchild naming a tool its parent was not granted is refused it,
 * and its call of it anyway reaches no server (the file that tool would write is not on the host).
 */
const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');

const call = (id: string, name: string, input: Record<string, unknown>): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
  stopReason: 'tool_use',
});
const done = (id: string, summary: string): FakeReply =>
  call(id, 'complete_task', { status: 'completed', summary });

function systemOf(request: RecordedRequest): string {
  const system = request.body?.system;
  return typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
}
const toolsOf = (request: RecordedRequest | undefined): string[] =>
  (request?.body?.tools ?? []).map((tool: { name: string }) => tool.name);

interface Line {
  type: string;
  id?: string;
  output?: string;
  isError?: boolean;
  message?: string;
}

describe('MCP tools for grandchildren', () => {
  it("a grandchild asking for a tool its parent was not granted is not given it, and its call writes nothing; its parent's grant it gets", async () => {
    await using home = await hostDir('mcp-grand-sec-home-');
    await using ws = await hostDir('mcp-grand-sec-ws-');
    await mkdir(path.join(ws.path, 'out'));
    await mkdir(path.join(home.path, '.skate'), { recursive: true });
    await writeFile(
      path.join(home.path, '.skate', 'settings.json'),
      JSON.stringify({
        mcpServers: { t: { command: process.execPath, args: [TEST_SERVER], policy: { write: ['out'] } } },
      }),
    );
    const byMain = path.join(ws.path, 'out', 'by-main');
    const byGrandchild = path.join(ws.path, 'out', 'by-grandchild');
    await using api = await fakeMessagesApi([
      // The control: the server's tool writes where its policy lets it.
      call('m1', 'mcp__t__touch', { path: byMain }),
      call('m2', 'spawn_agent', { task: 'GRANTLEVEL-ONE: delegate', tools: ['mcp__t__echo', 'spawn_agent'] }),
      { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ]);
    // The hostile grandchild calls the tool anyway, then the one it was given. (First: its system
    // prompt carries its parent's task too.)
    api.enqueueFor(
      'GRANTLEVEL-TWO',
      call('g1', 'mcp__t__touch', { path: byGrandchild }),
      call('g2', 'mcp__t__echo', { text: 'from the grandchild' }),
      done('g3', 'tried'),
    );
    api.enqueueFor(
      'GRANTLEVEL-ONE',
      call('c1', 'spawn_agent', {
        task: 'GRANTLEVEL-TWO: touch',
        tools: ['mcp__t__echo', 'mcp__t__touch', 'mcp__t__*'],
      }),
      done('c2', 'delegated'),
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
    expect(existsSync(byMain), context).toBe(true);
    // On the host: the grandchild's call wrote nothing.
    expect(existsSync(byGrandchild), context).toBe(false);

    const child = api.requests.filter((r) => systemOf(r).includes('GRANTLEVEL-ONE'));
    const grandchild = api.requests.filter((r) => systemOf(r).includes('GRANTLEVEL-TWO'));
    expect(child.length, context).toBeGreaterThan(0);
    expect(grandchild, context).toHaveLength(3);
    const mcpOf = (r: RecordedRequest | undefined) => toolsOf(r).filter((name) => name.startsWith('mcp__'));
    expect(mcpOf(child[0])).toEqual(['mcp__t__echo']);
    // `mcp__t__*` and `mcp__t__touch` give nothing its parent was not given.
    for (const request of grandchild) expect(mcpOf(request)).toEqual(['mcp__t__echo']);
    expect(systemOf(grandchild[0]!)).toContain('mcp__t__touch: no MCP tool of that name');

    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    const result = (id: string) => lines.find((line) => line.type === 'tool_call_result' && line.id === id);
    expect(result('g1'), context).toMatchObject({ isError: true });
    expect(result('g2'), context).toMatchObject({ isError: false, output: 'echo: from the grandchild' });
  }, 150_000);
});
