import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath, projectRoot } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually, pidsWithMarker } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { loggingSlowServer, logLines, SLOW_SERVER } from '../support/slow-mcp-server.js';

const ROOT = projectRoot();
const PACKAGES = path.join(ROOT, 'node_modules', '@modelcontextprotocol');
const MEMORY_SERVER = path.join(PACKAGES, 'server-memory', 'dist', 'index.js');
const EVERYTHING_SERVER = path.join(PACKAGES, 'server-everything', 'dist', 'index.js');
const EXECUTOR_ENTRY = path.join('executor', 'bundle', 'executor.js');

interface ResultLine {
  type: string;
  id?: string;
  output?: string;
  isError?: boolean;
}

function results(stdout: string): Record<string, ResultLine> {
  const byId: Record<string, ResultLine> = {};
  for (const line of stdout.trim().split('\n')) {
    const parsed = JSON.parse(line) as ResultLine;
    if (parsed.type === 'tool_call_result' && parsed.id) byId[parsed.id] = parsed;
  }
  return byId;
}

const toolNames = (request: { body?: { tools?: { name: string }[] } } | undefined): string[] =>
  (request?.body?.tools ?? []).map((tool) => tool.name);

async function skateP(home: string, ws: string, replies: FakeReply[]) {
  await using api = await fakeMessagesApi(replies);
  const result = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws], {
    env: cliEnv({ home: home, api: api.url }),
    timeoutMs: 90_000,
  });
  expect(result.code, result.stderr).toBe(0);
  return { result, requests: [...api.requests], byId: results(result.stdout) };
}

/** Files named `name` under `dir`, at any depth. */
async function findFiles(dir: string, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (entry.name === name) found.push(path.join(entry.parentPath, entry.name));
  }
  return found;
}

/** The executor processes (node running the executor bundle) below `pid`. */
async function executorsBelow(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const child of await processDescendants(pid)) {
    const line = await commandLine(child);
    if (line.startsWith(process.execPath) && line.includes(EXECUTOR_ENTRY)) found.push(child);
  }
  return found;
}

describe('the real npm MCP servers and slow ones (#22)', () => {
  it('server-memory from skate -p: entities made in one run are read back in the next; its file is where its policy lets it write, and nowhere else', async () => {
    await using home = await hostDir('mcp-real-home-');
    await using ws = await hostDir('mcp-real-ws-');
    await mkdir(path.join(ws.path, 'memory'));
    const memoryFile = path.join(ws.path, 'memory', 'graph.jsonl');
    await writeSkateSettings(home.path, {
      mcpServers: {
        mem: {
          command: process.execPath,
          args: [MEMORY_SERVER],
          env: { MEMORY_FILE_PATH: memoryFile },
          policy: { write: ['memory'] },
        },
        // The same server without a write path: it writes next to its own code by default.
        plain: { command: process.execPath, args: [MEMORY_SERVER] },
      },
      mcp: { toolSchemaBudget: 1_000_000 },
    });
    const entity = { name: 'Skate', entityType: 'project', observations: ['confines MCP servers'] };
    const first = await skateP(home.path, ws.path, [
      call('c1', 'mcp__mem__create_entities', { entities: [entity] }),
      call('c2', 'mcp__plain__create_entities', { entities: [entity] }),
      text('remembered'),
    ]);
    expect(toolNames(first.requests[0])).toEqual(
      expect.arrayContaining(['mcp__mem__create_entities', 'mcp__mem__read_graph']),
    );
    expect(first.byId.c1).toMatchObject({ isError: false });
    expect(first.byId.c1?.output).toContain('confines MCP servers');
    // The server without a write path fails to write, and its default file never appears.
    expect(first.byId.c2).toMatchObject({ isError: true });
    expect(existsSync(path.join(PACKAGES, 'server-memory', 'dist', 'memory.jsonl'))).toBe(false);
    expect(await readFile(memoryFile, 'utf8')).toContain('"name":"Skate"');
    expect(await findFiles(ws.path, 'graph.jsonl')).toEqual([memoryFile]);
    expect(await findFiles(home.path, 'graph.jsonl')).toEqual([]);
    expect(await findFiles(home.path, 'memory.jsonl')).toEqual([]);

    const second = await skateP(home.path, ws.path, [
      call('r1', 'mcp__mem__open_nodes', { names: ['Skate'] }),
      text('found'),
    ]);
    expect(second.byId.r1).toMatchObject({ isError: false });
    expect(second.byId.r1?.output).toContain('confines MCP servers');
  }, 240_000);

  it('server-everything from skate -p: a tool called, a long call with progress completes, a task-only tool left out, and a server asking for sampling, elicitation and roots is refused at once', async () => {
    await using home = await hostDir('mcp-real-home-');
    await using ws = await hostDir('mcp-real-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: {
        every: { command: process.execPath, args: [EVERYTHING_SERVER] },
        ask: { command: process.execPath, args: [SLOW_SERVER] },
      },
      mcp: { toolSchemaBudget: 1_000_000 },
    });
    const started = Date.now();
    const run = await skateP(home.path, ws.path, [
      call('e1', 'mcp__every__get-sum', { a: 2, b: 40 }),
      call('e2', 'mcp__every__trigger-long-running-operation', { duration: 2, steps: 4 }),
      call('a1', 'mcp__ask__ask-client', {}),
      text('done'),
    ]);
    const tools = toolNames(run.requests[0]);
    expect(tools).toEqual(
      expect.arrayContaining(['mcp__every__echo', 'mcp__every__get-sum', 'mcp__every__get-tiny-image']),
    );
    // Tools that need a client capability Skate does not declare are not even offered.
    expect(tools.filter((name) => /sampling|elicitation|roots|research/.test(name))).toEqual([]);
    expect(run.byId.e1).toMatchObject({ isError: false, output: 'The sum of 2 and 40 is 42.' });
    expect(run.byId.e2?.output).toContain('Long running operation completed');
    const asked = run.byId.a1?.output ?? '';
    expect(asked).toContain('capabilities: {}');
    expect(asked).toContain('sampling/createMessage: MCP error -32601: Method not found');
    expect(asked).toContain('elicitation/create: MCP error -32601: Method not found');
    expect(asked).toContain('roots/list: MCP error -32601: Method not found');
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it('tools/list_changed: a tool the running server adds is offered in the next request, after the others, and remembered for the next run', async () => {
    await using home = await hostDir('mcp-real-home-');
    await using ws = await hostDir('mcp-real-ws-');
    await writeSkateSettings(home.path, {
      mcpServers: { s: { command: process.execPath, args: [SLOW_SERVER] } },
    });
    const run = await skateP(home.path, ws.path, [
      call('a', 'mcp__s__add-tool', {}),
      call('b', 'mcp__s__added', {}),
      text('done'),
    ]);
    const before = toolNames(run.requests[0]);
    const after = toolNames(run.requests[1]);
    expect(before).not.toContain('mcp__s__added');
    // The prefix the first request had is kept as it was; the new tool comes last.
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.at(-1)).toBe('mcp__s__added');
    expect(run.byId.b).toMatchObject({ isError: false, output: 'added tool ran' });
    // Its manifest was refreshed: a next run offers it without starting the server.
    const next = await skateP(home.path, ws.path, [text('hi')]);
    expect(toolNames(next.requests[0])).toContain('mcp__s__added');
  }, 120_000);

  it('a server slower to answer initialize than the start timeout is named, its executor is gone, and the agent goes on with its other tools', async () => {
    await using home = await hostDir('mcp-real-home-');
    await using ws = await hostDir('mcp-real-ws-');
    await writeFile(path.join(ws.path, 'note.txt'), 'still readable\n');
    const marker = `slow-init-${randomUUID()}`;
    await writeSkateSettings(home.path, {
      mcpServers: {
        sleepy: {
          command: process.execPath,
          args: [SLOW_SERVER, marker],
          env: { MCP_SLOW_INIT_MS: '120000' },
        },
      },
      mcp: { startTimeoutSeconds: 2 },
    });
    await using api = await fakeMessagesApi([
      call('r', 'read_file', { path: 'note.txt' }),
      // Slow enough to look at the host's processes while skate waits for it.
      { type: 'message', blocks: [{ type: 'text', text: 'the end of a slow reply' }], chunkDelayMs: 700 },
    ]);
    const child = spawn(
      process.execPath,
      [distPath('cli', 'skate.js'), '-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path],
      { env: cliEnv({ home: home.path, api: api.url }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = once(child, 'close');
    try {
      expect(await eventually(() => api.requests.length >= 2, 60_000), stderr).toBe(true);
      // Only the agent's own executor is left; the server's (and the server) are gone.
      expect(await executorsBelow(child.pid!)).toHaveLength(1);
      expect(await pidsWithMarker(marker)).toEqual([]);
      const [code] = await exited;
      expect(code, stderr).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(stderr).toMatch(/MCP server "sleepy" .*did not start within 2000 ms/);
    expect(results(stdout).r).toMatchObject({
      isError: false,
      output: expect.stringContaining('still readable'),
    });
  }, 120_000);

  it('Ctrl-C (SIGINT) during a long MCP call reaches the server as notifications/cancelled, and leaves no process', async () => {
    await using home = await hostDir('mcp-real-home-');
    await using ws = await hostDir('mcp-real-ws-');
    const { config, events, marker } = await loggingSlowServer(ws.path, 'slow-call');
    await writeSkateSettings(home.path, { mcpServers: { s: config } });
    await using api = await fakeMessagesApi([call('slow', 'mcp__s__slow', {}), text('unused')]);
    const child = spawn(
      process.execPath,
      [distPath('cli', 'skate.js'), '-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path],
      { env: cliEnv({ home: home.path, api: api.url }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = once(child, 'close');
    try {
      const calling = async () => (await logLines(events)).some((line) => line.startsWith('slow started'));
      expect(await eventually(calling, 60_000), stderr).toBe(true);
      child.kill('SIGINT');
      await exited;
    } finally {
      child.kill('SIGKILL');
    }
    const log = await logLines(events);
    const requestId = log.find((line) => line.startsWith('slow started'))?.split(' ')[2];
    expect(log.some((line) => line.startsWith(`cancelled ${requestId}`))).toBe(true);
    expect(log).not.toContain('slow finished');
    expect(await eventually(async () => (await pidsWithMarker(marker)).length === 0)).toBe(true);
  }, 120_000);
});
