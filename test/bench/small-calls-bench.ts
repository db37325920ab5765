import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { formatPolicyProblem, loadPolicy } from '../../harness/policy/load-policy.js';
import { projectRoot } from '../../harness/project-paths.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { median, round } from './stats.js';

const CALLS = 400;
const BLOCKS = 5;

export interface SmallCallFigures {
  read_file_small_us: number;
  mcp_read_text_file_us: number;
  read_file_small_vs_mcp: number;
  list_dir_us: number;
  mcp_list_directory_us: number;
  list_dir_vs_mcp: number;
}

/** Median of per-call times over `calls` sequential calls, in µs. */
async function timeCalls(calls: number, call: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    await call();
    times.push((performance.now() - start) * 1000);
  }
  return median(times);
}

/**
 * read_file of a 1.5 KB file and list_dir of a 40-entry directory through the executor,
 * against the MCP filesystem server's read_text_file and list_directory through the MCP
 * SDK's own client over stdio; same files, alternating blocks, both warmed up. The executor
 * runs the built-in `execute` policy for the workspace, as `skate` does by default, so each
 * path found is checked against its deny rules.
 */
export async function benchSmallCalls(workspacePolicy: ResolvedPolicy): Promise<SmallCallFigures> {
  const loaded = await loadPolicy('execute', { workspace: workspacePolicy.workspace });
  if (!loaded.ok) throw new Error(formatPolicyProblem(loaded.problem));
  const policy = loaded.policy;
  const dir = path.join(policy.workspace, 'small');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'small.ts');
  await writeFile(file, `${'export const value = 42; // a line of about fifty bytes\n'.repeat(28)}`);
  for (let i = 0; i < 39; i++) await writeFile(path.join(dir, `f${i}.txt`), 'x');

  const executor = await ExecutorClient.spawn({ policy });
  const server = path.join(
    projectRoot(),
    'node_modules',
    '@modelcontextprotocol',
    'server-filesystem',
    'dist',
    'index.js',
  );
  const mcp = new Client({ name: 'skate-bench', version: '0' });
  await mcp.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [server, policy.workspace],
      stderr: 'ignore',
    }),
  );
  try {
    const ours = {
      read: () => executor.callTool('read_file', { path: file }),
      list: () => executor.callTool('list_dir', { path: dir }),
    };
    const theirs = {
      read: () => mcp.callTool({ name: 'read_text_file', arguments: { path: file } }),
      list: () => mcp.callTool({ name: 'list_directory', arguments: { path: dir } }),
    };
    const samples = { read: [[], []] as number[][], list: [[], []] as number[][] };
    for (const kind of ['read', 'list'] as const) {
      await timeCalls(100, ours[kind]);
      await timeCalls(100, theirs[kind]);
      for (let b = 0; b < BLOCKS; b++) {
        samples[kind][0]!.push(await timeCalls(CALLS / BLOCKS, ours[kind]));
        samples[kind][1]!.push(await timeCalls(CALLS / BLOCKS, theirs[kind]));
      }
    }
    const [read, mcpRead] = samples.read.map(median) as [number, number];
    const [list, mcpList] = samples.list.map(median) as [number, number];
    return {
      read_file_small_us: round(read, 0),
      mcp_read_text_file_us: round(mcpRead, 0),
      read_file_small_vs_mcp: round(read / mcpRead, 2),
      list_dir_us: round(list, 0),
      mcp_list_directory_us: round(mcpList, 0),
      list_dir_vs_mcp: round(list / mcpList, 2),
    };
  } finally {
    await mcp.close();
    await executor.shutdown();
  }
}
