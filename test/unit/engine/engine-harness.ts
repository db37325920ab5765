import {
  type CollectingEmitter,
  createCollectingEmitter,
} from '../../../harness/emitters/collecting-emitter.js';
import { type CommandInboxHandle, createCommandInbox } from '../../../harness/engine/command-inbox.js';
import { Engine, type EngineOptions } from '../../../harness/engine/engine.js';
import type {
  ConversationLog,
  EngineContext,
  MetaTool,
  RunOutcome,
  RunRequest,
  ToolHost,
} from '../../../harness/engine/engine-types.js';
import type { AgentHooks } from '../../../harness/hooks/hook-verdict.js';
import type { Message } from '../../../shared/conversation.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import type { OutputLine, ToolDefinition, ToolEffect, ToolResult } from '../../../shared/tool.js';
import {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedTurn,
} from '../../support/scripted-provider.js';

export interface FakeToolCall {
  name: string;
  input: unknown;
  signal: AbortSignal | undefined;
}

type FakeRun = (
  input: unknown,
  options: { signal?: AbortSignal; onOutput?: (line: OutputLine) => void },
) => Promise<ToolResult> | ToolResult;

export interface FakeToolHost extends ToolHost {
  readonly calls: FakeToolCall[];
  /** Calls started and not yet settled. */
  readonly running: number;
}

/** A tool for the fake host: a definition plus what it does. */
export function fakeTool(
  name: string,
  effect: ToolEffect,
  run?: FakeRun,
): { definition: ToolDefinition; run: FakeRun } {
  return {
    definition: { name, description: `the ${name} tool`, effect, inputSchema: { type: 'object' } },
    run: run ?? (() => ({ output: `${name} ok`, isError: false })),
  };
}

/** An in-memory ToolHost: what an executor would be, without the process. */
export function createFakeToolHost(tools: ReturnType<typeof fakeTool>[]): FakeToolHost {
  const calls: FakeToolCall[] = [];
  let running = 0;
  return {
    calls,
    get running() {
      return running;
    },
    async listTools() {
      return tools.map((tool) => tool.definition);
    },
    async callTool(name, input, options) {
      calls.push({ name, input, signal: options.signal });
      const tool = tools.find((candidate) => candidate.definition.name === name);
      if (!tool) return { output: `unknown tool ${name}`, isError: true, code: 'unknown_tool' };
      running++;
      try {
        return await tool.run(input, options);
      } finally {
        running--;
      }
    },
  };
}

/** Resolves once the signal aborts. */
export function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal || signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export interface LogEntry {
  kind: keyof ConversationLog;
  args: unknown[];
}

export function recordingLog(): ConversationLog & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const record =
    (kind: keyof ConversationLog) =>
    (...args: unknown[]): void => {
      entries.push({ kind, args: structuredClone(args) });
    };
  return {
    entries,
    userMessage: record('userMessage'),
    assistantMessage: record('assistantMessage'),
    toolResults: record('toolResults'),
    compaction: record('compaction'),
  };
}

export interface EngineRun {
  outcome: RunOutcome;
  events: CollectingEmitter;
  provider: ScriptedProvider;
  host: FakeToolHost;
}

export interface RunOptions {
  turns: ScriptedTurn[];
  tools?: ReturnType<typeof fakeTool>[];
  request?: Partial<RunRequest>;
  contextWindow?: number;
  metaTools?: MetaTool[];
  log?: ConversationLog;
  engine?: EngineOptions;
  hooks?: AgentHooks;
  /** Sees each event as it is emitted, with the means to answer or interrupt. */
  onEvent?: (event: EngineEvent, control: { inbox: CommandInboxHandle; abort(): void }) => void;
}

/** One engine run against the scripted provider and a fake tool host. */
export async function runEngine(options: RunOptions): Promise<EngineRun> {
  const provider = createScriptedProvider(options.turns, { contextWindow: options.contextWindow ?? 200_000 });
  const host = createFakeToolHost(options.tools ?? []);
  const inbox = createCommandInbox();
  const controller = new AbortController();
  const control = { inbox, abort: () => controller.abort() };
  const events = createCollectingEmitter((event) => options.onEvent?.(event, control));
  const ctx: EngineContext = {
    provider,
    tools: host,
    inbox: inbox.inbox,
    signal: controller.signal,
    ...(options.metaTools && { metaTools: options.metaTools }),
    ...(options.log && { log: options.log }),
    ...(options.hooks && { hooks: options.hooks }),
  };
  const outcome = await new Engine(options.engine).run(ctx, baseRequest(options.request), events);
  return { outcome, events, provider, host };
}

export function baseRequest(overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    prompt: { text: 'Do the thing.' },
    model: 'claude-sonnet-5-5',
    maxTokens: 4096,
    maxTurns: 20,
    approval: 'auto',
    ...overrides,
  };
}

/** Every tool_result must answer a tool_use of the message right before it, and every tool_use must be answered. */
export function expectPairsIntact(messages: readonly Message[]): void {
  messages.forEach((message, index) => {
    const uses = message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    const next = messages[index + 1];
    const answered =
      next?.content.flatMap((block) => (block.type === 'tool_result' ? [block.callId] : [])) ?? [];
    if (message.role === 'assistant' && uses.length > 0 && index < messages.length - 1) {
      if (JSON.stringify(uses) !== JSON.stringify(answered)) {
        throw new Error(`message ${index}: tool_use ${uses.join(',')} answered by ${answered.join(',')}`);
      }
    }
    const results = message.content.flatMap((block) => (block.type === 'tool_result' ? [block.callId] : []));
    if (results.length > 0) {
      const previous = messages[index - 1];
      const asked = previous?.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])) ?? [];
      if (JSON.stringify(asked) !== JSON.stringify(results)) {
        throw new Error(
          `message ${index}: tool_result ${results.join(',')} follows tool_use ${asked.join(',')}`,
        );
      }
    }
  });
}
