import { createSpawnAgentTool, type SpawnAgentToolOptions } from '../../harness/agents/spawn-agent-tool.js';
import {
  type CollectingEmitter,
  createCollectingEmitter,
} from '../../harness/emitters/collecting-emitter.js';
import { createCommandInbox } from '../../harness/engine/command-inbox.js';
import { Engine } from '../../harness/engine/engine.js';
import type { MetaTool, RunOutcome, ToolHost } from '../../harness/engine/engine-types.js';
import type { ModelProvider } from '../../harness/provider/model-provider.js';
import { createAgentSession } from '../../harness/runtime/agent-session.js';
import type { ChildExecutorInfo } from '../../harness/runtime/agent-settings.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { ToolResult } from '../../shared/tool.js';
import { createScriptedProvider, type ScriptedProvider, type ScriptedTurn } from './scripted-provider.js';

/** A tool host with no tools: for a parent whose model only spawns sub-agents. */
export const noTools: ToolHost = {
  listTools: async () => [],
  callTool: async (name): Promise<ToolResult> => ({
    output: `no ${name} here`,
    isError: true,
    code: 'unknown_tool',
  }),
};

export interface SpawnRunOptions {
  parentPolicy: ResolvedPolicy;
  parent: ScriptedTurn[];
  /** Each child's scripted turns, by the exact task it is given. */
  children: Record<string, ScriptedTurn[]>;
  /** Wraps each child's provider (to delay its turns, say). */
  wrapChild?(provider: ScriptedProvider, task: string): ModelProvider;
  tools?: ToolHost;
  signal?: AbortSignal;
  spawn?: Partial<Omit<SpawnAgentToolOptions, 'startChild'>>;
  extraMetaTools?: MetaTool[];
}

export interface SpawnRun {
  outcome: RunOutcome;
  events: CollectingEmitter;
  parent: ScriptedProvider;
  /** Each child's scripted provider, by task. */
  providers: Record<string, ScriptedProvider>;
  spawned: ChildExecutorInfo[];
  exited: ChildExecutorInfo[];
  /** Each child's agent id, by task. */
  agentFor: Record<string, string>;
  /** `spawned agent-1`, `exited agent-1`, … in the order they happened. */
  lifecycle: string[];
}

/**
 * Runs a parent engine whose model (scripted) calls spawn_agent; each child
 * gets its own scripted provider chosen by task and a REAL executor under the
 * real sandbox (launcherFor, mode `required`).
 */
export async function runWithSubagents(options: SpawnRunOptions): Promise<SpawnRun> {
  const parent = createScriptedProvider(options.parent);
  const providers = Object.fromEntries(
    Object.entries(options.children).map(([task, turns]) => [task, createScriptedProvider(turns)]),
  );
  const spawned: ChildExecutorInfo[] = [];
  const exited: ChildExecutorInfo[] = [];
  const events = createCollectingEmitter();
  const agentFor: Record<string, string> = {};
  const lifecycle: string[] = [];
  const spawnTool = createSpawnAgentTool({
    parentPolicy: options.parentPolicy,
    sandbox: 'required',
    providerFor: ({ task, agentId }) => {
      agentFor[task] = agentId;
      const provider = providers[task];
      if (!provider) throw new Error(`no scripted child for task ${task}`);
      return options.wrapChild ? options.wrapChild(provider, task) : provider;
    },
    model: 'scripted-model',
    maxTokens: 1024,
    onChildSpawned: (info) => {
      spawned.push(info);
      lifecycle.push(`spawned ${info.agent.join('/')}`);
    },
    onChildExited: (info) => {
      exited.push(info);
      lifecycle.push(`exited ${info.agent.join('/')}`);
    },
    startChild: createAgentSession,
    ...options.spawn,
  });
  const outcome = await new Engine().run(
    {
      provider: parent,
      tools: options.tools ?? noTools,
      metaTools: [spawnTool, ...(options.extraMetaTools ?? [])],
      inbox: createCommandInbox().inbox,
      signal: options.signal ?? new AbortController().signal,
    },
    {
      prompt: { text: 'Delegate.' },
      model: 'scripted-model',
      maxTokens: 1024,
      maxTurns: 10,
      approval: 'auto',
      workspace: options.parentPolicy.workspace,
      policyName: options.parentPolicy.name,
    },
    events,
  );
  return { outcome, events, parent, providers, spawned, exited, agentFor, lifecycle };
}

/** A scripted turn that calls spawn_agent once. */
export function spawnCall(id: string, input: Record<string, unknown>): ScriptedTurn['steps'][number] {
  return { type: 'tool_call', id, name: 'spawn_agent', input };
}

/** A scripted turn that ends a child with a valid generic result. */
export function completeTurn(summary = 'done', extra: Record<string, unknown> = {}): ScriptedTurn {
  return {
    steps: [
      {
        type: 'tool_call',
        id: `done-${summary.length}`,
        name: 'complete_task',
        input: { status: 'completed', summary, files_changed: [], tests_run: [], follow_ups: [], ...extra },
      },
    ],
  };
}

/** A scripted turn that runs one shell command. */
export function shellTurn(id: string, command: string): ScriptedTurn {
  return { steps: [{ type: 'tool_call', id, name: 'shell', input: { command } }] };
}
