import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

/**
 * Resources for sub-agents (issue #22) never widen a child: a read-only child asking for the
 * resources of a server whose executor may write is refused them, and its call never reaches that
 * server (its start log, on the host, shows no start for it); a server it is given reads only what
 * its own executor may (a resource template naming `~/.ssh/id_rsa` of a fake HOME reads nothing of
 * the key, in the result or in any request to the model).
 */
const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const KEY = 'PRIVATE-KEY-9c41e7d2-NEVER-READ';

const startsIn = async (log: string): Promise<number> =>
  existsSync(log) ? (await readFile(log, 'utf8')).trim().split('\n').filter(Boolean).length : 0;

describe('MCP resources and sub-agents', () => {
  it("a read-only child never reaches a writing server's resources, and a server it is given reads no ~/.ssh key", async () => {
    await using home = await hostDir('mcpres-sub-sec-home-');
    await using ws = await hostDir('mcpres-sub-sec-ws-');
    await mkdir(path.join(home.path, '.ssh'), { recursive: true });
    await writeFile(path.join(home.path, '.ssh', 'id_rsa'), `${KEY}\n`);
    await mkdir(path.join(ws.path, 'out'));
    const log = path.join(ws.path, 'out', 'w-starts');
    await writeSkateSettings(home.path, {
      mcpServers: {
        t: { command: process.execPath, args: [TEST_SERVER] },
        w: {
          command: process.execPath,
          args: [TEST_SERVER],
          env: { MCP_START_LOG: log },
          policy: { write: ['out'] },
        },
      },
    });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home.path,
      ANTHROPIC_API_KEY: 'sk-ant-test',
    };
    delete env.XDG_CACHE_HOME;
    // A first run learns the servers' manifests (w starts once, to list).
    {
      await using api = await fakeMessagesApi([text('hello')]);
      const first = await runCli(['-p', 'hi', '--workspace', ws.path], {
        env: { ...env, ANTHROPIC_BASE_URL: api.url },
        timeoutMs: 90_000,
      });
      expect(first.code, first.stderr).toBe(0);
    }
    expect(await startsIn(log)).toBe(1);
    const keyUri = `test://file?path=${encodeURIComponent(path.join(home.path, '.ssh', 'id_rsa'))}`;
    await using api = await fakeMessagesApi([
      call('s1', 'spawn_agent', {
        task: 'SUB-SEC: read',
        read_only: true,
        tools: ['mcp__w__*', 'mcp_read_resource'],
      }),
      text('done'),
    ]);
    api.enqueueFor(
      'SUB-SEC',
      call('c1', 'mcp_read_resource', { server: 'w', uri: 'test://docs/readme' }),
      call('c2', 'mcp_read_resource', { server: 't', uri: keyUri }),
      call('c3', 'complete_task', { status: 'completed', summary: 'tried' }),
    );
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: { ...env, ANTHROPIC_BASE_URL: api.url },
      timeoutMs: 120_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const results = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; id?: string; isError?: boolean; output?: string })
      .filter((line) => line.type === 'tool_call_result');
    expect(results.find((r) => r.id === 'c1')).toMatchObject({ isError: true });
    // The writing server was never started for the child's call.
    expect(await startsIn(log)).toBe(1);
    // The key stayed on the host: in no result, and in no request the model was sent.
    expect(results.find((r) => r.id === 'c2')?.output).not.toContain(KEY);
    expect(run.stdout).not.toContain(KEY);
    for (const request of api.requests) expect(JSON.stringify(request.body)).not.toContain(KEY);
  }, 240_000);
});
