import { spawn } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WARM_AFTER_IDLE_MS } from '../../executor/executor.js';
import { createSpawnAgentTool } from '../../harness/agents/spawn-agent-tool.js';
import { createCollectingEmitter } from '../../harness/emitters/collecting-emitter.js';
import { createCommandInbox } from '../../harness/engine/command-inbox.js';
import { Engine } from '../../harness/engine/engine.js';
import type { MetaTool } from '../../harness/engine/engine-types.js';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import type { ModelProvider } from '../../harness/provider/model-provider.js';
import { createAgentSession } from '../../harness/runtime/agent-session.js';
import type { ChildExecutorInfo } from '../../harness/runtime/agent-settings.js';
import { executorEnvironment } from '../../harness/sandbox/executor-env.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { testPolicy } from '../support/policies.js';
import { processDescendants } from '../support/process-descendants.js';
import { createScriptedProvider } from '../support/scripted-provider.js';
import { noTools } from '../support/spawn-harness.js';
import { median, round } from './stats.js';

const WIDE = 8;
/** Time given to an idle executor's warm-up to finish before its memory is measured. */
const WARM_UP_ALLOWANCE_MS = 500;
/** Rounds of one single run then one wide run, alternating, so both see the same machine. */
const ROUNDS = 5;

export interface SubagentFigures {
  /** spawn_agent called → the child's first model request: policy, executor start, engine start. */
  subagent_ready_ms: number;
  /** A parent run whose one spawn_agent call's child completes at once. */
  subagent_1_wall_ms: number;
  /** The same with 8 spawn_agent calls in one turn (they run concurrently). */
  subagents_8_wall_ms: number;
  /** 8 against 1 (medians): 1 would mean perfect parallelism, 8 none. */
  subagents_8_vs_1: number;
  /** The lowest and highest ratio of one round (a wide run against the single run just before it). */
  subagents_8_vs_1_range: [number, number];
  /**
   * Baseline for the ratio: bare executors (spawn under the policy, list tools, shut down), 8 at
   * once against 1, in the same rounds. What sub-agents add on top of that is the harness's.
   */
  executors_8_vs_1: number;
  /**
   * The machine's floor, in the same rounds: `node -e 0`, 8 at once against 1, with the environment
   * an executor gets. Each executor is at least one Node process: the hardware allows no better.
   */
  node_8_vs_1: number;
  /** The medians behind `node_8_vs_1`. */
  node_1_wall_ms: number;
  node_8_wall_ms: number;
  /** The harness's own CPU for one sub-agent (policy, sandbox plan, spawn, engine, teardown) when 8 run at once. */
  subagent_parent_cpu_ms: number;
  /** The same for a run with one sub-agent (it includes the parent's own turns). */
  subagent_1_parent_cpu_ms: number;
  /** Resident memory of one child executor's process tree (sandbox, executor), mean over 8 alive and warmed up at once. */
  executor_rss_mb: number;
}

/** A child model that calls complete_task at once; `gate` holds its first reply until it resolves. */
function completingModel(onFirstRequest: () => void, gate?: Promise<void>): ModelProvider {
  const scripted = createScriptedProvider([
    {
      steps: [
        {
          type: 'tool_call',
          id: 'done',
          name: 'complete_task',
          input: {
            status: 'completed',
            summary: 'nothing to do',
            files_changed: [],
            tests_run: [],
            follow_ups: [],
          },
        },
      ],
    },
  ]);
  return {
    name: 'bench-child',
    contextWindow: () => 200_000,
    async *stream(request, signal) {
      onFirstRequest();
      await gate;
      yield* scripted.stream(request, signal);
    },
  };
}

interface WideRun {
  wallMs: number;
  /** This process's CPU (user + system) during the run. */
  cpuMs: number;
  /** Per child: ms from its spawn_agent call to its first model request. */
  readyMs: number[];
  rssMb: number[];
}

/** One parent run whose model spawns `count` read-only children in one turn. */
async function runParent(policy: ResolvedPolicy, count: number, measureRss: boolean): Promise<WideRun> {
  const spawned: ChildExecutorInfo[] = [];
  const calledAt = new Map<string, number>();
  const readyMs: number[] = [];
  let requested = 0;
  let release!: () => void;
  const gate = measureRss ? new Promise<void>((resolve) => (release = resolve)) : undefined;
  let allRequested!: () => void;
  const everyoneWaiting = new Promise<void>((resolve) => (allRequested = resolve));
  const spawn = createSpawnAgentTool({
    parentPolicy: policy,
    sandbox: 'required',
    model: 'bench',
    maxTokens: 1024,
    providerFor: ({ agentId }) =>
      completingModel(() => {
        readyMs.push(performance.now() - (calledAt.get(agentId) ?? Number.NaN));
        if (++requested === count) allRequested();
      }, gate),
    onChildSpawned: (info) => spawned.push(info),
    startChild: createAgentSession,
  });
  // The parent's model calls are numbered in order, and so are the children: call i spawns agent-i.
  const timed: MetaTool = {
    definition: spawn.definition,
    run(call) {
      calledAt.set(`agent-${call.callId.slice('spawn-'.length)}`, performance.now());
      return spawn.run(call);
    },
  };
  const parent = createScriptedProvider([
    {
      steps: Array.from({ length: count }, (_, i) => ({
        type: 'tool_call' as const,
        id: `spawn-${i + 1}`,
        name: 'spawn_agent',
        input: { task: `bench child ${i + 1}`, read_only: true },
      })),
    },
    { steps: [{ type: 'text', text: 'done' }] },
  ]);
  const rssMb: number[] = [];
  const measuring = measureRss
    ? everyoneWaiting.then(async () => {
        // Idle executors warm up (the shell module, zod, one spawn): measure them as they are after it.
        await sleep(WARM_AFTER_IDLE_MS + WARM_UP_ALLOWANCE_MS);
        for (const child of spawned) rssMb.push(await treeRssMb(child.pid));
        release();
      })
    : Promise.resolve();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const outcome = await new Engine().run(
    {
      provider: parent,
      tools: noTools,
      metaTools: [timed],
      inbox: createCommandInbox().inbox,
      signal: new AbortController().signal,
    },
    { prompt: { text: 'spawn' }, model: 'bench', maxTokens: 1024, maxTurns: 3, approval: 'auto' },
    createCollectingEmitter(),
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await measuring;
  if (outcome.status !== 'complete' || requested !== count) {
    throw new Error(`bench parent ended ${outcome.status} with ${requested}/${count} children started`);
  }
  return { wallMs, cpuMs: (used.user + used.system) / 1000, readyMs, rssMb };
}

/** Starts `count` bare executors at once, lists their tools and shuts them down; the wall time. */
async function runExecutors(policy: ResolvedPolicy, count: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: count }, async () => {
      const executor = await ExecutorClient.spawn({ policy });
      await executor.listTools();
      await executor.shutdown();
    }),
  );
  return performance.now() - started;
}

/**
 * Starts `count` bare Node processes (`node -e 0`) at once and waits for them to exit; the wall
 * time. They get the executor's environment, not ours: a variable such as NODE_EXTRA_CA_CERTS
 * (set on these machines) makes Node 20 parse every certificate at start, 55 ms of CPU of its 85.
 */
async function runNodes(policy: ResolvedPolicy, count: number): Promise<number> {
  const env = executorEnvironment(policy, process.env);
  const started = performance.now();
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore', env });
          child.once('error', reject);
          child.once('exit', (code) =>
            code === 0 ? resolve() : reject(new Error(`node -e 0 exited with ${code}`)),
          );
        }),
    ),
  );
  return performance.now() - started;
}

/** Sum of VmRSS over a process and everything below it, in MB. */
async function treeRssMb(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  let kb = 0;
  for (const p of [pid, ...(await processDescendants(pid))]) {
    const status = await readFile(`/proc/${p}/status`, 'utf8').catch(() => '');
    kb += Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  return kb / 1024;
}

/**
 * Sub-agents with a scripted model and real sandboxed executors: how soon a
 * child is ready, what 8 at once cost against one, in time and in memory.
 */
export async function benchSubagents(): Promise<SubagentFigures> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'skate-subagent-bench-')));
  try {
    const policy = testPolicy(workspace, { name: 'bench' });
    // Warm up: page cache, sandbox probe, the modules and code paths both kinds of run take.
    await runParent(policy, 1, false);
    await runParent(policy, WIDE, false);
    const ready: number[] = [];
    const single: number[] = [];
    const wide: number[] = [];
    const singleCpu: number[] = [];
    const wideCpu: number[] = [];
    const bare: { one: number[]; wide: number[] } = { one: [], wide: [] };
    const nodes: { one: number[]; wide: number[] } = { one: [], wide: [] };
    for (let i = 0; i < ROUNDS; i++) {
      const run = await runParent(policy, 1, false);
      ready.push(...run.readyMs);
      single.push(run.wallMs);
      singleCpu.push(run.cpuMs);
      const wideRun = await runParent(policy, WIDE, false);
      wide.push(wideRun.wallMs);
      wideCpu.push(wideRun.cpuMs / WIDE);
      bare.one.push(await runExecutors(policy, 1));
      bare.wide.push(await runExecutors(policy, WIDE));
      nodes.one.push(await runNodes(policy, 1));
      nodes.wide.push(await runNodes(policy, WIDE));
    }
    const ratios = wide.map((wall, i) => wall / single[i]!);
    const memory = await runParent(policy, WIDE, true);
    const oneWall = median(single);
    const wideWall = median(wide);
    return {
      subagent_ready_ms: round(median(ready)),
      subagent_1_wall_ms: round(oneWall),
      subagents_8_wall_ms: round(wideWall),
      subagents_8_vs_1: round(wideWall / oneWall, 2),
      subagents_8_vs_1_range: [round(Math.min(...ratios), 2), round(Math.max(...ratios), 2)],
      executors_8_vs_1: round(median(bare.wide) / median(bare.one), 2),
      node_8_vs_1: round(median(nodes.wide) / median(nodes.one), 2),
      node_1_wall_ms: round(median(nodes.one)),
      node_8_wall_ms: round(median(nodes.wide)),
      subagent_parent_cpu_ms: round(median(wideCpu)),
      subagent_1_parent_cpu_ms: round(median(singleCpu)),
      executor_rss_mb: round(memory.rssMb.reduce((a, b) => a + b, 0) / memory.rssMb.length),
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
