import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

/**
 * Issue #22: a running sub-agent's MCP tools follow its servers' `tools/list_changed`, under the
 * grant it was spawned with: `mcp__s__*` gets a tool the server adds, and loses one it removes.
 */
const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');

function systemOf(request: RecordedRequest): string {
  const system = request.body?.system;
  return typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
}

const toolsOf = (request: RecordedRequest | undefined): string[] =>
  (request?.body?.tools ?? []).map((tool: { name: string }) => tool.name);

describe("a sub-agent's MCP tools after tools/list_changed", () => {
  it('a child granted mcp__s__* is offered the tool its server added (last, the rest in order), can call it, and loses the one it removed', async () => {
    await using home = await hostDir('mcp-sub-changed-home-');
    await using ws = await hostDir('mcp-sub-changed-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { s: { command: process.execPath, args: [SLOW_SERVER] } },
    });
    await using api = await fakeMessagesApi([
      call('s1', 'spawn_agent', {
        task: 'SUB-CHANGES: change the tools',
        read_only: true,
        tools: ['mcp__s__*'],
      }),
      text('done'),
    ]);
    api.enqueueFor(
      'SUB-CHANGES',
      call('c1', 'mcp__s__add-tool', {}),
      call('c2', 'mcp__s__added', {}),
      call('c3', 'mcp__s__remove-tool', {}),
      call('c4', 'complete_task', { status: 'completed', summary: 'changed' }),
    );
    const env = cliEnv({ home: home.path, api: api.url });
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env,
      timeoutMs: 90_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const child = api.requests.filter((request) => systemOf(request).includes('SUB-CHANGES'));
    expect(child, `${run.stderr}\n${run.stdout.slice(-3000)}`).toHaveLength(4);
    const [first, afterAdd, afterCall, afterRemove] = child.map(toolsOf);
    expect(first).toContain('mcp__s__ask-client');
    expect(first).not.toContain('mcp__s__added');
    // Added: last, and the tools before it as they were (the request's cached prefix holds).
    expect(afterAdd?.at(-1)).toBe('mcp__s__added');
    expect(afterAdd?.slice(0, -1)).toEqual(first);
    const added = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string; output?: string; isError?: boolean })
      .find((line) => line.type === 'tool_call_result' && line.id === 'c2');
    expect(added).toMatchObject({ isError: false, output: 'added tool ran' });
    expect(afterCall).toEqual(afterAdd);
    // Removed: gone from the next request, nothing else changed.
    expect(afterRemove).toEqual(afterAdd?.filter((name) => name !== 'mcp__s__ask-client'));
  }, 120_000);
});
