/**
 * `npm run bench [-- NAME…]`: prints one JSON line of named figures, each next to a
 * baseline measured in the same run. With names, runs only those sections (in table
 * order); without, all of them. Progress goes to stderr.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { testPolicy } from '../support/policies.js';
import { benchColdStart } from './cold-start-bench.js';
import { benchCreateGuard } from './create-guard-bench.js';
import { benchDispatchCache } from './dispatch-cache-bench.js';
import { benchTextDeltas } from './engine-bench.js';
import { benchFirstRequest } from './first-request-bench.js';
import { benchFirstShell } from './first-shell-bench.js';
import { benchGrep } from './grep-bench.js';
import { benchHooks } from './hooks-bench.js';
import { benchMcp } from './mcp-bench.js';
import { benchMcpFirstRequest } from './mcp-first-request-bench.js';
import { benchMcpLayers } from './mcp-layers-bench.js';
import { benchMcpLazyStart } from './mcp-lazy-start-bench.js';
import { benchMcpProgress } from './mcp-progress-bench.js';
import { benchMcpToolSearch } from './mcp-tool-search-bench.js';
import { benchNetworkProxy } from './network-proxy-bench.js';
import { benchRpc } from './rpc-bench.js';
import { benchServe } from './serve-bench.js';
import { benchSessions } from './session-bench.js';
import { benchSmallCalls } from './small-calls-bench.js';
import { benchSubagents } from './subagent-bench.js';
import { benchTui, benchTuiMemory } from './tui-bench.js';
import { benchTurn1 } from './turn1-bench.js';

/** What every section may use: a scratch workspace (removed at the end) and a policy for it. */
interface BenchContext {
  readonly workspace: string;
  readonly policy: ResolvedPolicy;
}

interface BenchSection {
  /** The name given on the command line. */
  readonly name: string;
  /** Said on stderr when the section starts. */
  readonly what: string;
  run(context: BenchContext): Promise<object>;
}

async function rpcRoundTrip({ policy }: BenchContext): Promise<object> {
  const executor = await ExecutorClient.spawn({ policy, diagnosticTools: true });
  try {
    return { enforcement: executor.enforcement, ...(await benchRpc(executor)) };
  } finally {
    await executor.shutdown();
  }
}

/** Every section, in the order they run: add one line per new bench. */
const sections: readonly BenchSection[] = [
  { name: 'cold-start', what: 'executor cold start', run: ({ policy }) => benchColdStart(policy) },
  { name: 'rpc', what: 'tool call round trip', run: rpcRoundTrip },
  {
    name: 'small-calls',
    what: 'small read_file and list_dir against the MCP filesystem server',
    run: ({ policy }) => benchSmallCalls(policy),
  },
  {
    name: 'first-shell',
    what: 'first shell call on a fresh executor',
    run: ({ policy }) => benchFirstShell(policy),
  },
  {
    name: 'first-request',
    what: '`skate -p` spawn to its first API request',
    run: () => benchFirstRequest(),
  },
  { name: 'engine', what: 'text deltas through the engine to stream-json', run: () => benchTextDeltas() },
  {
    name: 'create-guard',
    what: 'the create guard (10k files, tar x of 16k, write_file, a vitest run; against no guard)',
    run: () => benchCreateGuard(),
  },
  { name: 'grep', what: 'grep and glob on a 15k-file tree, against rg', run: () => benchGrep() },
  {
    name: 'network-proxy',
    what: 'the allowlist proxy (HTTPS connect, bulk download, npm install; against direct)',
    run: () => benchNetworkProxy(),
  },
  { name: 'sessions', what: 'sessions (load 100k events, appends)', run: () => benchSessions() },
  { name: 'turn1', what: 'turn-1 request bytes', run: () => benchTurn1() },
  {
    name: 'mcp',
    what: 'an MCP tool call through Skate vs the SDK client directly',
    run: ({ policy }) => benchMcp(policy),
  },
  {
    name: 'mcp-layers',
    what: "where an MCP call's time goes through Skate, layer by layer",
    run: ({ policy }) => benchMcpLayers(policy),
  },
  {
    name: 'mcp-first-request',
    what: '`skate -p` to its first request: five MCP servers configured (manifests remembered) vs none',
    run: () => benchMcpFirstRequest(),
  },
  {
    name: 'mcp-lazy-start',
    what: "an MCP server's cost until its first call, and that call (start included) vs a warm one",
    run: ({ policy }) => benchMcpLazyStart(policy),
  },
  {
    name: 'mcp-progress',
    what: "a fast MCP call as the engine makes it (progress watched after 400 ms) vs unwatched vs the SDK's client",
    run: ({ policy }) => benchMcpProgress(policy),
  },
  {
    name: 'mcp-tool-search',
    what: 'turn-1 request bytes: no MCP server, 50 MCP tools listed, 50 behind tool_search',
    run: () => benchMcpToolSearch(),
  },
  { name: 'subagents', what: 'sub-agents (ready time, 8 concurrent)', run: () => benchSubagents() },
  {
    name: 'dispatch-cache',
    what: "4 sibling sub-agents' prompt-cache hit rate, with and without the dispatch-prefix breakpoint",
    run: () => benchDispatchCache(),
  },
  {
    name: 'tui',
    what: 'terminal UI (keys with 5k blocks, streaming, 100k-event first frame)',
    run: () => benchTui(),
  },
  {
    name: 'tui-memory',
    what: "terminal UI memory over a 10,000-turn session (Ink's text caches: the bundle's bounded ones vs Ink's own)",
    run: () => benchTuiMemory(),
  },
  {
    name: 'hooks',
    what: 'one PreToolUse command hook per tool call: none, confined, full, plain bash -c',
    run: ({ workspace }) => benchHooks(workspace),
  },
  {
    name: 'serve',
    what: 'skate serve (50 sessions × 20 prompts; latency vs skate -p)',
    run: () => benchServe(),
  },
];

function chosenSections(names: readonly string[]): readonly BenchSection[] {
  if (names.length === 0) return sections;
  const unknown = names.filter((name) => !sections.some((section) => section.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: unknown section ${unknown.join(', ')}; sections: ${sections.map((s) => s.name).join(' ')}\n`,
    );
    process.exit(2);
  }
  return sections.filter((section) => names.includes(section.name));
}

const chosen = chosenSections(process.argv.slice(2));
const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-bench-')));
const figures: Record<string, unknown> = {};
try {
  const context: BenchContext = { workspace, policy: testPolicy(workspace, { name: 'bench' }) };
  for (const section of chosen) {
    process.stderr.write(`bench: ${section.what}\n`);
    Object.assign(figures, await section.run(context));
  }
} finally {
  await rm(workspace, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(figures)}\n`);
