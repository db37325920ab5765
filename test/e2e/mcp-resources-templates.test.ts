import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

/**
 * Resource templates and resources for sub-agents (issue #22) through the real CLI, the fake
 * Messages API and real executors: the listing names the server's templates, a URI filled from
 * one is read; a read-only child naming `mcp_read_resource` reads a read-only server's resources
 * and is refused a writing server's (its executor is wider than the child).
 */
const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');

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

describe('MCP resource templates, and resources for sub-agents', () => {
  it('lists templates, reads a URI filled from one, and gives a read-only child the resources of the servers it may be given', async () => {
    await using home = await hostDir('mcptpl-home-');
    await using ws = await hostDir('mcptpl-ws-');
    await writeFile(path.join(ws.path, 'notes.txt'), 'NOTES-FROM-THE-WORKSPACE\n');
    await mkdir(path.join(ws.path, 'out'));
    await writeSkateSettings(home.path, {
      mcpServers: {
        t: { command: process.execPath, args: [TEST_SERVER] },
        w: { command: process.execPath, args: [TEST_SERVER], policy: { write: ['out'] } },
      },
    });
    const uri = `test://file?path=${encodeURIComponent(path.join(ws.path, 'notes.txt'))}`;
    await using api = await fakeMessagesApi([
      call('l1', 'mcp_list_resources', { server: 't' }),
      call('r1', 'mcp_read_resource', { server: 't', uri }),
      call('s1', 'spawn_agent', {
        task: 'SUB-RES: read the notes',
        read_only: true,
        tools: ['read_file', 'mcp_read_resource'],
      }),
      text('done'),
    ]);
    api.enqueueFor(
      'SUB-RES',
      call('c1', 'mcp_read_resource', { server: 't', uri }),
      call('c2', 'mcp_read_resource', { server: 'w', uri }),
      call('c3', 'complete_task', { status: 'completed', summary: 'read' }),
    );
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 120_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const out = lines(run.stdout);
    const result = (id: string) => out.find((l) => l.type === 'tool_call_result' && l.id === id);
    expect(result('l1').output).toContain('test://docs/readme\treadme');
    expect(result('l1').output).toContain('Templates (fill in the {placeholders} and read the URI):');
    expect(result('l1').output).toContain('test://file{?path}\tfile (text/plain)');
    expect(result('r1')).toMatchObject({ isError: false, output: 'NOTES-FROM-THE-WORKSPACE\n' });
    // The child: offered the resource tools, reads t's, is refused w's (said in its system prompt too).
    const child = api.requests.filter((r) => systemOf(r).includes('SUB-RES'));
    expect(toolsOf(child[0])).toEqual(expect.arrayContaining(['read_file', 'mcp_read_resource']));
    expect(toolsOf(child[0]).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    expect(systemOf(child[0]!)).toMatch(/MCP server "w" \(0 tools, resources\)/);
    expect(result('c1')).toMatchObject({ isError: false, output: 'NOTES-FROM-THE-WORKSPACE\n' });
    expect(result('c2')).toMatchObject({ isError: true });
    expect(result('c2').output).toMatch(/no MCP server "w" with resources/);
  }, 180_000);
});
