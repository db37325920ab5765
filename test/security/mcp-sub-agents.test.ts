import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

/**
 * A sub-agent is never widened through an MCP server: a read-only child is not given a server whose
 * executor may write, so the file that server's tool would write does not appear on the host.
 */
const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');

const done = (id: string, summary: string): FakeReply =>
  call(id, 'complete_task', { status: 'completed', summary });

function systemOf(request: RecordedRequest): string {
  const system = request.body?.system;
  return typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
}

describe('MCP servers and sub-agents', () => {
  it('a read-only child is refused a server that writes (not granted), and its tool writes nothing', async () => {
    await using home = await hostDir('mcpsub-sec-home-');
    await using ws = await hostDir('mcpsub-sec-ws-');
    await mkdir(path.join(ws.path, 'out'));
    await writeSkateSettings(home.path, {
      mcpServers: { t: { command: process.execPath, args: [TEST_SERVER], policy: { write: ['out'] } } },
    });
    const readOnlyTarget = path.join(ws.path, 'out', 'from-read-only-child');
    const writerTarget = path.join(ws.path, 'out', 'from-writing-child');
    await using api = await fakeMessagesApi([
      call('s1', 'spawn_agent', { task: 'SEC-RO: touch', read_only: true, tools: ['mcp__t__*'] }),
      call('s2', 'spawn_agent', { task: 'SEC-RW: touch', write_paths: [ws.path], tools: ['mcp__t__touch'] }),
      { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ]);
    // The hostile child calls the tool anyway (it was not offered it).
    api.enqueueFor('SEC-RO', call('r1', 'mcp__t__touch', { path: readOnlyTarget }), done('r2', 'tried'));
    // The control: a child that may write the workspace is given the server, and its call writes.
    api.enqueueFor('SEC-RW', call('w1', 'mcp__t__touch', { path: writerTarget }), done('w2', 'wrote'));
    const env = cliEnv({ home: home.path, api: api.url });
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env,
      timeoutMs: 90_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const readOnly = api.requests.filter((r) => systemOf(r).includes('SEC-RO'));
    expect(readOnly.length).toBeGreaterThan(0);
    const offered = (readOnly[0]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    expect(offered.filter((name: string) => name.startsWith('mcp__'))).toEqual([]);
    expect(systemOf(readOnly[0] as RecordedRequest)).toContain('MCP server "t"');
    expect(run.stdout).toContain('not granted: MCP server \\"t\\"');
    // The host's state: nothing written by the refused call; the control's file is there.
    expect(existsSync(readOnlyTarget)).toBe(false);
    expect(existsSync(writerTarget)).toBe(true);
  }, 120_000);
});
