/**
 * `npm run bench`: prints one JSON line of named figures, each next to a
 * baseline measured in the same run. Progress goes to stderr.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { testPolicy } from '../support/policies.js';
import { benchColdStart } from './cold-start-bench.js';
import { benchTextDeltas } from './engine-bench.js';
import { benchFirstShell } from './first-shell-bench.js';
import { benchGrep } from './grep-bench.js';
import { benchRpc } from './rpc-bench.js';
import { benchServe } from './serve-bench.js';
import { benchSessions } from './session-bench.js';
import { benchSmallCalls } from './small-calls-bench.js';
import { benchSubagents } from './subagent-bench.js';
import { benchTui } from './tui-bench.js';
import { benchTurn1 } from './turn1-bench.js';

const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-bench-')));
const figures: Record<string, unknown> = {};
try {
  const policy = testPolicy(workspace, { name: 'bench' });
  process.stderr.write('bench: executor cold start\n');
  Object.assign(figures, await benchColdStart(policy));
  process.stderr.write('bench: tool call round trip\n');
  const executor = await ExecutorClient.spawn({ policy, diagnosticTools: true });
  try {
    figures.enforcement = executor.enforcement;
    Object.assign(figures, await benchRpc(executor));
  } finally {
    await executor.shutdown();
  }
  process.stderr.write('bench: small read_file and list_dir against the MCP filesystem server\n');
  Object.assign(figures, await benchSmallCalls(policy));
  process.stderr.write('bench: first shell call on a fresh executor\n');
  Object.assign(figures, await benchFirstShell(policy));
  process.stderr.write('bench: text deltas through the engine to stream-json\n');
  Object.assign(figures, await benchTextDeltas());
  process.stderr.write('bench: grep and glob on a 15k-file tree, against rg\n');
  Object.assign(figures, await benchGrep());
  process.stderr.write('bench: sessions (load 100k events, appends)\n');
  Object.assign(figures, await benchSessions());
  process.stderr.write('bench: turn-1 request bytes\n');
  Object.assign(figures, await benchTurn1());
  process.stderr.write('bench: sub-agents (ready time, 8 concurrent)\n');
  Object.assign(figures, await benchSubagents());
  process.stderr.write('bench: terminal UI (keys with 5k blocks, streaming, 100k-event first frame)\n');
  Object.assign(figures, await benchTui());
  process.stderr.write('bench: skate serve (50 sessions × 20 prompts; latency vs skate -p)\n');
  Object.assign(figures, await benchServe());
} finally {
  await rm(workspace, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify(figures)}\n`);
