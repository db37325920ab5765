import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const NAMES = ['s1', 's2', 's3', 's4', 's5'];

/** Lines in each server's start log (one per start of its process), by server name. */
async function starts(ws: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const name of NAMES) {
    const log = path.join(ws, 'log', name);
    counts[name] = existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter(Boolean).length : 0;
  }
  return counts;
}

describe('five configured MCP servers', () => {
  it('once their manifests are known, none starts for a run that calls no tool, and a call starts only its own', async () => {
    await using home = await hostDir('mcp-lazy-home-');
    await using ws = await hostDir('mcp-lazy-ws-');
    await mkdir(path.join(ws.path, 'log'));
    await mkdir(path.join(home.path, '.skate'));
    const mcpServers = Object.fromEntries(
      NAMES.map((name) => [
        name,
        {
          command: process.execPath,
          args: [TEST_SERVER],
          env: { MCP_START_LOG: path.join(ws.path, 'log', name) },
          policy: { write: ['log'] },
        },
      ]),
    );
    await writeFile(path.join(home.path, '.skate', 'settings.json'), JSON.stringify({ mcpServers }));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home.path,
      ANTHROPIC_API_KEY: 'sk-ant-test',
    };
    delete env.SKATE_MODEL;
    delete env.XDG_CACHE_HOME;
    const run = async (replies: FakeReply[]) => {
      await using api = await fakeMessagesApi(replies);
      const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
        env: { ...env, ANTHROPIC_BASE_URL: api.url },
        timeoutMs: 90_000,
      });
      expect(result.code, result.stderr).toBe(0);
      const tools = (api.requests[0]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
      return { result, tools };
    };
    const offered = NAMES.map((name) => `mcp__${name}__echo`);

    // Nothing remembered: each server starts once, to list its tools.
    const learning = await run([text('hello')]);
    expect(learning.tools).toEqual(expect.arrayContaining(offered));
    expect(await starts(ws.path)).toEqual({ s1: 1, s2: 1, s3: 1, s4: 1, s5: 1 });

    // Remembered: the same tools are offered and no server process starts.
    const idle = await run([text('hello again')]);
    expect(idle.tools).toEqual(expect.arrayContaining(offered));
    expect(await starts(ws.path)).toEqual({ s1: 1, s2: 1, s3: 1, s4: 1, s5: 1 });

    // A call to one server's tool starts that server alone.
    const calling = await run([call('a', 'mcp__s3__echo', { text: 'hi' }), text('done')]);
    const result = calling.result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; output?: string })
      .find((line) => line.type === 'tool_call_result');
    expect(result).toMatchObject({ output: 'echo: hi' });
    expect(await starts(ws.path)).toEqual({ s1: 1, s2: 1, s3: 2, s4: 1, s5: 1 });
  }, 180_000);
});
