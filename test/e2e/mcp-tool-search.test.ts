import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const MANY_TOOLS = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'many-tools-server.mjs');

interface Tool {
  name: string;
  description: string;
  input_schema: unknown;
}
const toolsOf = (body: unknown): Tool[] =>
  ((body as { tools?: (Tool & { cache_control?: unknown })[] }).tools ?? []).map(
    ({ cache_control: _, ...tool }) => tool,
  );

interface Line {
  type: string;
  id?: string;
  output?: string;
  isError?: boolean;
}
const results = (stdout: string): Line[] =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line)
    .filter((line) => line.type === 'tool_call_result');

async function settings(home: string, mcp?: Record<string, unknown>): Promise<void> {
  await writeSkateSettings(home, {
    mcpServers: { many: { command: process.execPath, args: [MANY_TOOLS] } },
    ...(mcp && { mcp }),
  });
}

describe('tool_search past the MCP schema budget', () => {
  it('sends tool_search instead of 50 schemas, appends the tools it loads, refuses (and loads) an unloaded call, and keeps them loaded on resume', async () => {
    await using home = await hostDir('mcp-ts-home-');
    await using ws = await hostDir('mcp-ts-ws-');
    await settings(home.path);
    await using api = await fakeMessagesApi([
      call('s1', 'tool_search', { query: 'weather forecast' }),
      call('c1', 'mcp__many__get_weather_forecast', { id: 'lyon' }),
      call('c2', 'mcp__many__delete_invoice', { id: 'i-1' }),
      text('done'),
    ]);
    const run = await runCli(
      ['-p', 'what is the weather', '--output-format', 'stream-json', '--workspace', ws.path],
      {
        env: cliEnv({ home: home.path, api: api.url }),
        timeoutMs: 90_000,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const [first, second, third, fourth] = api.requests.map((r) => toolsOf(r.body));
    const names = (tools: Tool[] | undefined) => (tools ?? []).map((t) => t.name);
    // Turn 1: tool_search, and none of the 50 schemas.
    expect(names(first)).toContain('tool_search');
    expect(names(first).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    const search = first?.find((t) => t.name === 'tool_search');
    expect(search?.description).toContain('mcp__many__delete_invoice');
    const [s1, c1, c2] = results(run.stdout);
    expect(s1?.isError).toBe(false);
    expect(s1?.output).toContain('mcp__many__get_weather_forecast');
    // Turn 2: the tools it loaded, appended after the same tools as before (the cached prefix holds).
    expect(second?.slice(0, first?.length)).toEqual(first);
    const added = names(second).slice(first?.length);
    expect(added[0]).toBe('mcp__many__get_weather_forecast');
    expect(added.every((n) => n.startsWith('mcp__many__'))).toBe(true);
    expect(second?.find((t) => t.name === 'mcp__many__get_weather_forecast')?.input_schema).toMatchObject({
      properties: { id: { type: 'string' } },
    });
    // The loaded tool runs (its server started at the call).
    expect(c1).toMatchObject({ isError: false, output: 'get_weather_forecast {"id":"lyon"}' });
    // A tool not loaded yet is refused, without running, and loaded for the next request.
    expect(c2?.isError).toBe(true);
    expect(c2?.output).toMatch(/not run: its input schema had not been loaded/);
    expect(names(third)).not.toContain('mcp__many__delete_invoice');
    expect(names(fourth).at(-1)).toBe('mcp__many__delete_invoice');
    expect(fourth?.slice(0, third?.length)).toEqual(third);

    // Resumed: the loaded tools are offered from the first request on, in the same order.
    await using again = await fakeMessagesApi([text('still here')]);
    const resumed = await runCli(
      ['--continue', '-p', 'and now', '--output-format', 'stream-json', '--workspace', ws.path],
      { env: cliEnv({ home: home.path, api: again.url }), timeoutMs: 90_000 },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(toolsOf(again.requests[0]?.body)).toEqual(fourth);
  }, 180_000);

  it('lists every MCP tool as before when their schemas fit the budget (mcp.toolSchemaBudget)', async () => {
    await using home = await hostDir('mcp-ts-home-');
    await using ws = await hostDir('mcp-ts-ws-');
    await settings(home.path, { toolSchemaBudget: 1_000_000 });
    await using api = await fakeMessagesApi([text('hello')]);
    const run = await runCli(['-p', 'hi', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 90_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const names = toolsOf(api.requests[0]?.body).map((t) => t.name);
    expect(names).not.toContain('tool_search');
    expect(names.filter((n) => n.startsWith('mcp__many__'))).toHaveLength(50);
  }, 120_000);

  it('keeps the first request within 2 KB of one with no MCP server configured', async () => {
    await using home = await hostDir('mcp-ts-home-');
    await using bare = await hostDir('mcp-ts-bare-');
    await using ws = await hostDir('mcp-ts-ws-');
    const bytesOf = async (homeDir: string): Promise<number> => {
      await using api = await fakeMessagesApi([text('hello')]);
      const run = await runCli(['-p', 'hi', '--output-format', 'json', '--workspace', ws.path], {
        env: cliEnv({ home: homeDir, api: api.url }),
        timeoutMs: 90_000,
      });
      expect(run.code, run.stderr).toBe(0);
      return Buffer.byteLength(JSON.stringify(api.requests[0]?.body));
    };
    await settings(home.path);
    const without = await bytesOf(bare.path);
    const with50 = await bytesOf(home.path);
    expect(with50 - without).toBeGreaterThan(0);
    expect(with50 - without).toBeLessThanOrEqual(2048);
  }, 120_000);
});
