import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { toolCallResults } from '../support/stream-json.js';

const ROOT = projectRoot();
const TEST_SERVER = path.join(ROOT, 'test', 'fixtures', 'mcp', 'test-server.mjs');
const FILESYSTEM_SERVER = path.join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
);

const testServer = (log: string) => ({
  command: process.execPath,
  args: [TEST_SERVER],
  env: { MCP_START_LOG: log },
  policy: { write: ['log'] },
});

const startsIn = async (log: string): Promise<number> =>
  existsSync(log) ? (await readFile(log, 'utf8')).trim().split('\n').filter(Boolean).length : 0;

describe('MCP servers', () => {
  it('skate -p calls a tool of the real filesystem server, confined in its own executor', async () => {
    await using home = await hostDir('mcp-home-');
    await using ws = await hostDir('mcp-ws-');
    await writeFile(path.join(ws.path, 'note.txt'), 'hello from the workspace\n');
    await writeSkateSettings(home.path, {
      mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, ws.path] } },
      // Its 14 schemas are past the default budget: listed here as they are (tool_search has its own test).
      mcp: { toolSchemaBudget: 1_000_000 },
    });
    await using api = await fakeMessagesApi([
      call('t1', 'mcp__fs__read_text_file', { path: path.join(ws.path, 'note.txt') }),
      call('t2', 'mcp__fs__write_file', { path: path.join(ws.path, 'new.txt'), content: 'x' }),
      text('done'),
    ]);
    const result = await runCli(
      ['-p', 'read the note', '--output-format', 'stream-json', '--workspace', ws.path],
      { env: cliEnv({ home: home.path, api: api.url }), timeoutMs: 90_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const tools = (api.requests[0]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
    expect(tools).toContain('mcp__fs__read_text_file');
    const [read, write] = toolCallResults(result.stdout);
    expect(read).toMatchObject({ id: 't1', isError: false, output: 'hello from the workspace\n' });
    // Its default policy writes nothing, though the agent's (execute) writes the workspace.
    expect(write).toMatchObject({ id: 't2', isError: true });
    expect(existsSync(path.join(ws.path, 'new.txt'))).toBe(false);
  }, 120_000);

  it('starts a server with a remembered manifest only at its first call, and a server killed mid-call is an error the next call survives', async () => {
    await using home = await hostDir('mcp-home-');
    await using ws = await hostDir('mcp-ws-');
    await mkdir(path.join(ws.path, 'log'));
    const log = path.join(ws.path, 'log', 'starts');
    await writeSkateSettings(home.path, { mcpServers: { t: testServer(log) } });
    const run = async (replies: FakeReply[]) => {
      const api = await fakeMessagesApi(replies);
      try {
        const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
          env: cliEnv({ home: home.path, api: api.url }),
          timeoutMs: 90_000,
        });
        expect(result.code, result.stderr).toBe(0);
        return { result, tools: (api.requests[0]?.body?.tools ?? []).map((t: { name: string }) => t.name) };
      } finally {
        await api[Symbol.asyncDispose]();
      }
    };
    // First run: nothing remembered, so the server starts to list its tools.
    const first = await run([text('hello')]);
    expect(first.tools).toEqual(expect.arrayContaining(['mcp__t__echo', 'mcp__t__die']));
    expect(await startsIn(log)).toBe(1);
    // Second run: its tools are offered from memory, and it never starts.
    const second = await run([text('hello again')]);
    expect(second.tools).toEqual(expect.arrayContaining(['mcp__t__echo', 'mcp__t__die']));
    expect(await startsIn(log)).toBe(1);
    // Third run: the first call starts it; it dies during the next; the one after starts it again.
    const third = await run([
      call('a', 'mcp__t__echo', { text: 'one' }),
      call('b', 'mcp__t__die', {}),
      call('c', 'mcp__t__echo', { text: 'two' }),
      text('done'),
    ]);
    const [a, b, c] = toolCallResults(third.result.stdout);
    expect(a).toMatchObject({ id: 'a', isError: false, output: 'echo: one' });
    expect(b).toMatchObject({ id: 'b', isError: true });
    expect(b?.output).toMatch(/MCP server "t"/);
    expect(c).toMatchObject({ id: 'c', isError: false, output: 'echo: two' });
    expect(await startsIn(log)).toBe(3);
  }, 240_000);

  it("a workspace's .mcp.json is used headless only with --trust-workspace-mcp, and skate mcp list says so", async () => {
    await using home = await hostDir('mcp-home-');
    await using ws = await hostDir('mcp-ws-');
    await mkdir(path.join(ws.path, 'log'));
    const log = path.join(ws.path, 'log', 'starts');
    await writeFile(
      path.join(ws.path, '.mcp.json'),
      JSON.stringify({ mcpServers: { proj: testServer(log) } }),
    );
    const listed = await runCli(['mcp', 'list', '--workspace', ws.path, '--json'], {
      env: cliEnv({ home: home.path, api: 'http://127.0.0.1:1' }),
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ name: 'proj', source: 'workspace', consent: 'not given' }),
    ]);
    await using api = await fakeMessagesApi([
      text('no servers'),
      call('x', 'mcp__proj__echo', { text: 'hi' }),
      text('ok'),
    ]);
    const refused = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 90_000,
    });
    expect(refused.code, refused.stderr).toBe(0);
    expect(refused.stderr).toMatch(/MCP server "proj".*consent/);
    expect(JSON.stringify(api.requests[0]?.body?.tools)).not.toContain('mcp__proj');
    expect(await startsIn(log)).toBe(0);
    const trusted = await runCli(
      ['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path, '--trust-workspace-mcp'],
      { env: cliEnv({ home: home.path, api: api.url }), timeoutMs: 90_000 },
    );
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(toolCallResults(trusted.stdout)[0]).toMatchObject({ id: 'x', isError: false, output: 'echo: hi' });
  }, 180_000);

  it('a server that cannot start is named in a note, never dropped silently', async () => {
    await using home = await hostDir('mcp-home-');
    await using ws = await hostDir('mcp-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { broken: { command: process.execPath, args: ['-e', 'process.exit(7)'] } },
    });
    await using api = await fakeMessagesApi([text('ok')]);
    const result = await runCli(['-p', 'go', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 90_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/MCP server "broken".*(could not start|offers no tools)/);
  }, 120_000);
});
