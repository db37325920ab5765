import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const SLOW_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'slow-server.mjs');

interface EventLine {
  type: string;
  id?: string;
  stream?: string;
  text?: string;
  output?: string;
}

describe('MCP progress from skate -p --output-format stream-json (#22)', () => {
  it('a slow call shows its progress as tool_output_line events of stream progress, in order; a fast call shows none', async () => {
    await using home = await hostDir('mcp-progress-home-');
    await using ws = await hostDir('mcp-progress-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { s: { command: process.execPath, args: [SLOW_SERVER] } },
    });
    await using api = await fakeMessagesApi([
      call('fast', 'mcp__s__progress', { steps: 2, intervalMs: 20, message: 'quick' }),
      call('slow', 'mcp__s__progress', { steps: 6, intervalMs: 300, message: 'copying file' }),
      text('done'),
    ]);
    const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EventLine);
    const progress = (id: string) =>
      events.filter((e) => e.type === 'tool_output_line' && e.id === id).map((e) => `${e.stream} ${e.text}`);
    // Under the 400 ms before the harness watches a call: not a frame of output.
    expect(progress('fast')).toEqual([]);
    const shown = progress('slow');
    expect(shown.length, result.stdout).toBeGreaterThanOrEqual(3);
    for (const line of shown) expect(line).toMatch(/^progress [1-6]\/6 copying file [1-6]$/);
    const steps = shown.map((line) => Number(/ (\d)\/6/.exec(line)?.[1]));
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(new Set(steps).size).toBe(steps.length);
    // Each line comes before the call's result.
    const resultAt = events.findIndex((e) => e.type === 'tool_call_result' && e.id === 'slow');
    const lastLineAt = events.findLastIndex((e) => e.type === 'tool_output_line' && e.id === 'slow');
    expect(lastLineAt).toBeLessThan(resultAt);
    expect(events[resultAt]?.output).toBe('progress done');
  }, 120_000);
});
