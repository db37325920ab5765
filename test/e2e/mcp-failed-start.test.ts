import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import type { SystemInit } from '../../shared/run-result.js';
import { cliWorld, textReply, toolCall } from '../support/cli-world.js';
import type { CliResult } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
/** How long the broken server takes to fail: what a run waiting for it loses before its first request. */
const FAIL_AFTER_MS = 2500;

function initLine(result: CliResult): SystemInit {
  const first = result.stdout.split('\n')[0] ?? '';
  return JSON.parse(first) as SystemInit;
}

describe('an MCP server that fails at every start', () => {
  it('is remembered: the next run does not wait for it, still says it failed (why, when), and retries it in the background', async () => {
    await using world = await cliWorld({ home: true, prefix: 'mcp-failed-start-' });
    const home = world.home as string;
    const flag = path.join(world.ws, 'server-may-start');
    // Fails after a while until the flag exists; then it is the test server.
    const script = `require('fs').existsSync(${JSON.stringify(flag)}) ? import(${JSON.stringify(TEST_SERVER)}) : setTimeout(() => process.exit(3), ${FAIL_AFTER_MS})`;
    await writeSkateSettings(home, {
      mcpServers: { broken: { command: process.execPath, args: ['-e', script] } },
    });
    /** One `-p` run; the time from its spawn to the fake API's first request, and to its exit, in ms. */
    const run = async (): Promise<{ result: CliResult; firstRequestMs: number; totalMs: number }> => {
      const before = world.api.arrivals.length;
      const start = performance.now();
      const result = await world.skate(
        ['-p', 'go', '--output-format', 'stream-json', '--workspace', world.ws],
        {
          timeoutMs: 90_000,
        },
      );
      expect(result.code, result.stderr).toBe(0);
      const totalMs = performance.now() - start;
      return { result, firstRequestMs: (world.api.arrivals[before] as number) - start, totalMs };
    };

    // Nothing remembered: the run waits for the start, which fails; said on stderr and in stream-json.
    world.api.enqueue(textReply('one'));
    const first = await run();
    expect(first.result.stderr).toContain('MCP server "broken" offers no tools this run');
    expect(initLine(first.result).mcp_servers).toEqual([
      { name: 'broken', status: 'failed', error: expect.any(String), failedAt: expect.any(String) },
    ]);

    // Remembered: the first request goes without waiting, and the failure is still reported.
    world.api.enqueue(textReply('two'));
    const second = await run();
    console.log(
      `time to the first request: ${first.firstRequestMs.toFixed(0)} ms waiting for the failing server, ${second.firstRequestMs.toFixed(0)} ms with its failure remembered`,
    );
    expect(second.firstRequestMs).toBeLessThan(first.firstRequestMs - FAIL_AFTER_MS / 2);
    // Nor does it wait for the start in the background when it ends: that start is abandoned.
    expect(second.totalMs).toBeLessThan(first.totalMs - FAIL_AFTER_MS / 2);
    expect(second.result.stderr).toMatch(
      /MCP server "broken" failed to start at \d{4}-\d\d-\d\dT[^:]+:\d\d:\d\d\.\d+Z: .+; this run does not wait for it/,
    );
    const reported = initLine(second.result).mcp_servers?.[0];
    expect(reported).toMatchObject({ name: 'broken', status: 'failed' });
    expect(Date.parse(reported?.failedAt ?? '')).toBeGreaterThan(Date.now() - 120_000);
    expect(reported?.error).toBeTruthy();

    // `skate mcp list` shows it failed, why and when, and forgets it: the next run waits again.
    const listed = await world.skate(['mcp', 'list', '--workspace', world.ws]);
    expect(listed.stdout).toMatch(/broken: failed to start at \d{4}-.*forgotten now/);
    const again = await world.skate(['mcp', 'list', '--workspace', world.ws]);
    expect(again.stdout).toContain('broken: configured: starts at the next run to list its tools');
    world.api.enqueue(textReply('three'));
    const third = await run();
    expect(third.firstRequestMs).toBeGreaterThan(FAIL_AFTER_MS);
    expect(third.result.stderr).toContain('offers no tools this run');

    // Now it can start: a run does not wait for it, starts it meanwhile, and its tools join the
    // next request (the tools-changed path), as they would after `tools/list_changed`.
    await writeFile(flag, '');
    world.api.enqueue(toolCall('tu_wait', 'shell', { command: 'sleep 5' }), textReply('four'));
    const fourth = await run();
    expect(fourth.firstRequestMs).toBeLessThan(third.firstRequestMs - FAIL_AFTER_MS / 2);
    const requests = world.api.requests.slice(-2);
    const names = requests.map((request) => (request.body?.tools ?? []).map((tool) => tool.name));
    expect(names[0]).not.toContain('mcp__broken__echo');
    expect(names[1]).toContain('mcp__broken__echo');
    const known = await world.skate(['mcp', 'list', '--workspace', world.ws]);
    expect(known.stdout).toMatch(/broken: manifest known \(\d+ tools\)/);
  }, 240_000);
});
