import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

/**
 * MCP tools for sub-agents (issue #22) through the real CLI, fake Messages API, real executors:
 * a child is offered a server's tools only when its `tools` name them, and calls them through
 * the server's one executor (the parent's).
 */
const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');

const done = (id: string, summary: string): FakeReply =>
  call(id, 'complete_task', { status: 'completed', summary });

function systemOf(request: RecordedRequest): string {
  const system = request.body?.system;
  return typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
}

const toolsOf = (request: RecordedRequest | undefined): string[] =>
  (request?.body?.tools ?? []).map((tool: { name: string }) => tool.name);

// biome-ignore lint/suspicious/noExplicitAny: stream-json lines, checked field by field below
function lines(stdout: string): any[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('MCP tools for sub-agents', () => {
  it('a child whose tools name mcp__t__* calls the tool through the server; a child without it is not offered it', async () => {
    await using home = await hostDir('mcpsub-home-');
    await using ws = await hostDir('mcpsub-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { t: { command: process.execPath, args: [TEST_SERVER] } },
    });
    await using api = await fakeMessagesApi([
      call('s1', 'spawn_agent', {
        task: 'SUB-MCP: echo hi',
        read_only: true,
        tools: ['read_file', 'mcp__t__*'],
      }),
      call('s2', 'spawn_agent', { task: 'SUB-PLAIN: look', read_only: true, tools: ['read_file'] }),
      text('done'),
    ]);
    api.enqueueFor('SUB-MCP', call('c1', 'mcp__t__echo', { text: 'from the child' }), done('c2', 'echoed'));
    api.enqueueFor('SUB-PLAIN', done('p1', 'looked'));
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 90_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const withMcp = api.requests.filter((r) => systemOf(r).includes('SUB-MCP'));
    const plain = api.requests.filter((r) => systemOf(r).includes('SUB-PLAIN'));
    expect(toolsOf(withMcp[0])).toEqual(
      expect.arrayContaining(['read_file', 'mcp__t__echo', 'mcp__t__status']),
    );
    expect(toolsOf(withMcp[0])).not.toContain('shell');
    expect(toolsOf(plain[0]).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    // The child's call reached the server and came back to it.
    const echoed = lines(run.stdout).find((l) => l.type === 'tool_call_result' && l.id === 'c1');
    expect(echoed).toMatchObject({ isError: false, output: 'echo: from the child' });
    // Its next request carried the result.
    expect(JSON.stringify(withMcp[1]?.body?.messages)).toContain('echo: from the child');
  }, 120_000);
});

describe('MCP resources', () => {
  it('mcp_list_resources and mcp_read_resource read a server’s resources through its executor (binary summarised)', async () => {
    await using home = await hostDir('mcpres-home-');
    await using ws = await hostDir('mcpres-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { t: { command: process.execPath, args: [TEST_SERVER] } },
    });
    await using api = await fakeMessagesApi([
      call('l1', 'mcp_list_resources', { server: 't' }),
      call('r1', 'mcp_read_resource', { server: 't', uri: 'test://docs/readme' }),
      call('r2', 'mcp_read_resource', { server: 't', uri: 'test://docs/logo.png' }),
      call('r3', 'mcp_read_resource', { server: 'nope', uri: 'test://docs/readme' }),
      text('done'),
    ]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 90_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const offered = toolsOf(api.requests[0]);
    expect(offered).toEqual(
      expect.arrayContaining(['mcp_list_resources', 'mcp_read_resource', 'mcp__t__echo']),
    );
    // The executor's reserved names are not offered as the server's tools.
    expect(offered.filter((name) => name.includes('skate-'))).toEqual([]);
    const out = lines(run.stdout);
    const result = (id: string) => out.find((l) => l.type === 'tool_call_result' && l.id === id);
    expect(result('l1')).toMatchObject({ isError: false });
    expect(result('l1').output).toContain('test://docs/readme\treadme (text/plain): The service readme.');
    expect(result('l1').output).toContain('test://docs/logo.png\tlogo (image/png)');
    expect(result('r1')).toMatchObject({ isError: false, output: 'The readme of the test service.' });
    expect(result('r2').output).toMatch(
      /^\[binary image\/png test:\/\/docs\/logo\.png, 12 base64 characters\]$/,
    );
    expect(result('r3')).toMatchObject({ isError: true });
  }, 120_000);

  it('offers no resource tools when no server declares resources', async () => {
    await using home = await hostDir('mcpres-home-');
    await using ws = await hostDir('mcpres-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { t: { command: process.execPath, args: [TEST_SERVER], env: { MCP_NO_RESOURCES: '1' } } },
    });
    await using api = await fakeMessagesApi([text('done')]);
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const offered = toolsOf(api.requests[0]);
    expect(offered).toContain('mcp__t__echo');
    expect(offered.filter((name) => name.startsWith('mcp_') && !name.startsWith('mcp__'))).toEqual([]);
  }, 120_000);
});
