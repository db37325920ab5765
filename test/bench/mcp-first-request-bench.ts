import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { distPath, projectRoot } from '../../harness/project-paths.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { median, round } from './stats.js';

const ROUNDS = 9;
const SERVERS = 5;
const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');

/** One `skate -p` run with `home`'s settings: spawn → its first Messages request (ms), and the tools it offered. */
async function firstRequest(
  workspace: string,
  home: string,
  cache: string,
): Promise<{ ms: number; tools: string[] }> {
  await using api = await fakeMessagesApi([
    {
      type: 'message',
      blocks: [{ type: 'text', text: 'done' }],
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  ]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_CACHE_HOME: cache,
    ANTHROPIC_API_KEY: 'sk-ant-bench',
    ANTHROPIC_BASE_URL: api.url,
  };
  delete env.SKATE_MODEL;
  const startedAt = performance.now();
  const child = spawn(
    process.execPath,
    [distPath('cli', 'skate.js'), '-p', 'say done', '--workspace', workspace],
    {
      cwd: workspace,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`skate -p exited ${code}:\n${stderr}`);
  const first = api.requests.findIndex((r) => r.method === 'POST' && r.path === '/v1/messages');
  const arrived = api.arrivals[first];
  if (arrived === undefined) throw new Error('skate -p exited without a request to the Messages API');
  const tools = (api.requests[first]?.body?.tools ?? []).map((tool: { name: string }) => tool.name);
  return { ms: arrived - startedAt, tools };
}

const startsIn = async (log: string): Promise<number> =>
  existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter(Boolean).length : 0;

/**
 * `skate -p`'s first request with five stdio MCP servers configured (the test server under five
 * names) against none, their manifests remembered from a first run: rounds interleaved, the same
 * workspace and cache. Each server logs its starts: none may start during the rounds.
 */
export async function benchMcpFirstRequest(): Promise<object> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-mcp-first-')));
  const workspace = path.join(root, 'ws');
  const cache = path.join(root, 'cache');
  const bare = path.join(root, 'home-none');
  const five = path.join(root, 'home-five');
  // In the workspace: a server's sandbox sees the host's /tmp only there.
  const logs = Array.from({ length: SERVERS }, (_, i) => path.join(workspace, 'log', `s${i + 1}`));
  try {
    await Promise.all(
      [
        workspace,
        cache,
        path.join(bare, '.skate'),
        path.join(five, '.skate'),
        path.join(workspace, 'log'),
      ].map((dir) => mkdir(dir, { recursive: true })),
    );
    await writeFile(path.join(bare, '.skate', 'settings.json'), '{}');
    const mcpServers = Object.fromEntries(
      logs.map((log, i) => [
        `s${i + 1}`,
        {
          command: process.execPath,
          args: [TEST_SERVER],
          env: { MCP_START_LOG: log },
          policy: { write: ['log'] },
        },
      ]),
    );
    await writeFile(path.join(five, '.skate', 'settings.json'), JSON.stringify({ mcpServers }));
    // The first runs: every server starts once to list its tools, which are remembered.
    await firstRequest(workspace, bare, cache);
    const learnt = await firstRequest(workspace, five, cache);
    const startedToLearn = (await Promise.all(logs.map(startsIn))).reduce((a, b) => a + b, 0);
    const none: number[] = [];
    const withFive: number[] = [];
    let offered = 0;
    for (let i = 0; i < ROUNDS; i++) {
      none.push((await firstRequest(workspace, bare, cache)).ms);
      const run = await firstRequest(workspace, five, cache);
      withFive.push(run.ms);
      offered = run.tools.length;
    }
    const startedInRounds =
      (await Promise.all(logs.map(startsIn))).reduce((a, b) => a + b, 0) - startedToLearn;
    return {
      mcpFirstRequestNoServersMs: round(median(none)),
      mcpFirstRequestNoServersMinMaxMs: [round(Math.min(...none)), round(Math.max(...none))],
      mcpFirstRequestFiveServersMs: round(median(withFive)),
      mcpFirstRequestFiveServersMinMaxMs: [round(Math.min(...withFive)), round(Math.max(...withFive))],
      mcpFirstRequestFiveVsNone: round(median(withFive) / median(none), 2),
      mcpFirstRequestToolsOffered: { learning: learnt.tools.length, remembered: offered },
      mcpServersStartedToLearn: startedToLearn,
      mcpServersStartedDuringRounds: startedInRounds,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
