import { existsSync } from 'node:fs';
import type { TokenUsage } from '../../shared/engine-events.js';
import type { RunResult } from '../../shared/run-result.js';
import { createAskUserTool } from '../agents/ask-user-tool.js';
import { createSpawnAgentTool, type SpawnAgentToolOptions } from '../agents/spawn-agent-tool.js';
import { createDemoProvider, DEMO_MODEL } from '../demo/demo-provider.js';
import { createDemoWorkspace } from '../demo/demo-workspace.js';
import { createCollectingEmitter } from '../emitters/collecting-emitter.js';
import { createJsonLinesEmitter } from '../emitters/json-lines-emitter.js';
import { createTerminalEmitter } from '../emitters/terminal-emitter.js';
import { createCommandInbox } from '../engine/command-inbox.js';
import { Engine } from '../engine/engine.js';
import type { ApprovalMode, Emitter, MetaTool } from '../engine/engine-types.js';
import { createAnthropicProvider } from '../provider/anthropic-provider.js';
import { DEFAULT_MODEL, estimateCostUsd } from '../provider/model-catalog.js';
import type { ModelProvider } from '../provider/model-provider.js';
import { createHeadlessResponder } from './headless-responder.js';
import { note } from './note.js';
import { openAgentExecutor } from './open-agent-executor.js';
import { type ExecutorOptions, resolveWorkspace } from './open-executor.js';
import { openRunSession, type SessionFlags } from './open-run-session.js';
import { readStdin } from './read-stdin.js';
import { UsageError } from './usage-error.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

/** What the agent flags of the CLI give (`skate -p`, `skate plan`, `skate execute`). */
export interface AgentRunFlags extends ExecutorOptions {
  prompt?: string | undefined;
  outputFormat: OutputFormat;
  model?: string | undefined;
  maxTurns: number;
  maxTokens: number;
  thinkingBudgetTokens?: number | undefined;
  approval: ApprovalMode;
  systemPrompt?: string | undefined;
  appendSystemPrompt?: string | undefined;
  /** Recorded ask_user answers (`--answers FILE`), consumed in order. */
  answers?: string[][] | undefined;
  /** Offer spawn_agent; false with `--no-subagents`. Default true. */
  subagents?: boolean | undefined;
  /** Which session to record into: new (default), continued, resumed, forked, or none. */
  sessionFlags?: SessionFlags;
}

/** How one kind of run (plain, planning, executing a plan) differs from the plain one. */
export interface RunAgentOptions extends AgentRunFlags {
  /** Without ANTHROPIC_API_KEY, run the scripted first-run demo instead of refusing. */
  demo?: boolean;
  /** Said when no task was given. */
  promptHint?: string;
  /** The task when none was given. */
  defaultPrompt?: string;
  /** Harness tools beyond spawn_agent and ask_user. */
  metaTools?: readonly MetaTool[];
  /** Run under this policy whatever `--policy` says (planning uses `plan`). */
  policyOverride?: string;
  /** Appended to the system prompt, after `--append-system-prompt`. */
  systemPromptAddition?: string;
  /** Offer ask_user even when nobody can answer (it then says so at once). Default: only when someone can. */
  alwaysOfferAskUser?: boolean;
  subagentSettings?: {
    /** Sub-agent levels below this agent. Default 2. */
    maxDepth?: number;
    readOnly?: boolean;
    /** What children are told of this run's instructions. Default: the appended system prompt. */
    context?: string;
  };
  sessionForChild?: SpawnAgentToolOptions['sessionForChild'];
  /** Runs on the host once the workspace is resolved, before the executor starts. */
  prepareWorkspace?(workspace: string): Promise<void>;
  /** Runs after the run, with the executor's workspace; may print. */
  afterRun?(info: { workspace: string; status: RunResult['status'] }): Promise<void> | void;
}

const EXIT_BY_STATUS: Record<RunResult['status'], number> = {
  complete: 0,
  loop_cap: 0,
  error: 1,
  repetition: 1,
  cancelled: 130,
};

function joined(...parts: (string | undefined)[]): string | undefined {
  const present = parts.filter((part): part is string => Boolean(part));
  return present.length > 0 ? present.join('\n\n') : undefined;
}

/**
 * One headless agent run: the model is reached only from here (the API key
 * never leaves this process), tools only through the executor, and harness
 * tools (spawn_agent, ask_user) run here. Returns the exit code.
 */
export async function runAgent(options: RunAgentOptions): Promise<number> {
  const started = performance.now();
  const apiKey = process.env.ANTHROPIC_API_KEY;
  let prompt = options.prompt;
  if (prompt === undefined && !process.stdin.isTTY) prompt = (await readStdin()).trim() || undefined;
  prompt ??= options.defaultPrompt;
  if (!apiKey && !options.demo) throw new UsageError('set ANTHROPIC_API_KEY to run an agent');
  if (apiKey && !prompt) throw new UsageError(options.promptHint ?? 'give the task with -p "…" or on stdin');

  let provider: ModelProvider;
  let model: string;
  let executorOptions: ExecutorOptions = {
    ...options,
    ...(options.policyOverride && { policy: options.policyOverride }),
  };
  let demoOutside: string | undefined;
  if (apiKey) {
    provider = createAnthropicProvider({
      apiKey,
      ...(process.env.ANTHROPIC_BASE_URL && { baseURL: process.env.ANTHROPIC_BASE_URL }),
      ...(options.verbose && { onDebug: note }),
    });
    model = options.model ?? DEFAULT_MODEL;
  } else {
    const demo = await createDemoWorkspace();
    note(
      'ANTHROPIC_API_KEY is not set: running the demo (a scripted model; the executor and sandbox are real).',
    );
    note(`demo workspace: ${demo.dir}`);
    provider = createDemoProvider({ outsidePath: demo.outsidePath });
    demoOutside = demo.outsidePath;
    model = DEMO_MODEL;
    prompt = 'Show what Skate does.';
    executorOptions = { ...options, policy: 'execute', workspace: demo.dir, executor: undefined };
  }

  // Sessions live in the local workspace, even when tools run on a remote executor.
  const session = await openRunSession(
    options.sessionFlags ?? {},
    {
      workspace: await resolveWorkspace(executorOptions.workspace),
      model,
      policy: options.policyOverride ?? executorOptions.policy,
    },
    note,
  );
  const { executor, policy } = await openAgentExecutor(executorOptions, options.prepareWorkspace).catch(
    async (error: unknown) => {
      await session.close();
      throw error;
    },
  );
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const answers = options.answers ? [...options.answers] : undefined;
  const canAsk = interactive || (answers?.length ?? 0) > 0;
  try {
    const health = await executor.health();
    if (options.outputFormat === 'text') {
      note(`policy ${health.policy} · sandbox ${health.enforcement} · workspace ${health.workspace}`);
    }
    const appended = joined(options.appendSystemPrompt, options.systemPromptAddition);
    const metaTools: MetaTool[] = [...(options.metaTools ?? [])];
    const maxDepth = options.subagentSettings?.maxDepth ?? 2;
    if (options.subagents !== false && maxDepth > 0) {
      if (policy) {
        metaTools.push(
          createSpawnAgentTool({
            parentPolicy: policy,
            sandbox: options.sandbox,
            providerFor: () => provider,
            model,
            maxTokens: options.maxTokens,
            thinkingBudgetTokens: options.thinkingBudgetTokens,
            parentSystemPrompt: options.systemPrompt,
            context: options.subagentSettings?.context ?? appended,
            maxDepth,
            // A deny-writes run must not write through a child (an asking one asks before each spawn).
            readOnlyChildren: options.subagentSettings?.readOnly || options.approval === 'deny-writes',
            diagnosticTools: options.diagnosticTools ?? false,
            sessionForChild: options.sessionForChild ?? session.forChild,
            ...(session.writer && { parentSessionId: session.writer.header.id }),
          }),
        );
      } else if (options.verbose) {
        note('no sub-agents with a remote executor: its policy is not known here to narrow');
      }
    }
    if (options.alwaysOfferAskUser || canAsk) metaTools.push(createAskUserTool({ canAsk }));

    const controller = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      if (++interrupts > 1) process.exit(130);
      note('interrupting… (Ctrl-C again to quit at once)');
      controller.abort();
    };
    process.on('SIGINT', onSigint);

    const { inbox, send } = createCommandInbox();
    const jsonLines =
      options.outputFormat === 'stream-json' ? createJsonLinesEmitter(process.stdout) : undefined;
    const terminal =
      options.outputFormat === 'text'
        ? createTerminalEmitter({ stdout: process.stdout, stderr: process.stderr })
        : undefined;
    const base: Emitter = jsonLines ?? terminal ?? createCollectingEmitter();
    const emitter = createHeadlessResponder(base, { send, interactive, note, ...(answers && { answers }) });

    try {
      const outcome = await new Engine().run(
        {
          provider,
          tools: executor,
          metaTools,
          inbox,
          signal: controller.signal,
          ...(session.writer && { log: session.writer }),
        },
        {
          prompt: { text: prompt ?? '' },
          model,
          maxTokens: options.maxTokens,
          ...(options.thinkingBudgetTokens && { thinkingBudgetTokens: options.thinkingBudgetTokens }),
          ...(options.systemPrompt && { systemPrompt: options.systemPrompt }),
          ...(appended && { appendSystemPrompt: appended }),
          maxTurns: options.maxTurns,
          approval: options.approval,
          workspace: health.workspace,
          policyName: health.policy,
          ...(session.history.length > 0 && { history: session.history }),
        },
        emitter,
      );
      terminal?.close();
      const result: RunResult = {
        type: 'result',
        status: outcome.status,
        finalMessage: outcome.finalMessage,
        turns: outcome.turns,
        toolCalls: outcome.toolCalls,
        usage: outcome.usage,
        ...costOf(model, outcome.usage),
        model,
        ...(session.writer && { sessionId: session.writer.header.id }),
        durationMs: Math.round(performance.now() - started),
        ...(outcome.error && { error: outcome.error }),
      };
      if (jsonLines) {
        await jsonLines.flush();
        process.stdout.write(`${JSON.stringify(result)}\n`);
      } else if (options.outputFormat === 'json') {
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      } else if (outcome.status === 'error') {
        note(`the run failed: ${outcome.error ?? 'unknown error'}`);
      }
      await options.afterRun?.({ workspace: health.workspace, status: outcome.status });
      if (demoOutside) {
        const escaped = existsSync(demoOutside);
        note(
          escaped
            ? `DEMO FAILED: ${demoOutside} exists on the host`
            : `checked on the host: ${demoOutside} does not exist`,
        );
        if (escaped) return 1;
      }
      return EXIT_BY_STATUS[outcome.status];
    } finally {
      process.off('SIGINT', onSigint);
    }
  } finally {
    await executor.shutdown();
    await session.close();
  }
}

function costOf(model: string, usage: TokenUsage): { costUsd?: number } {
  const cost = estimateCostUsd(model, usage);
  return cost === undefined ? {} : { costUsd: Math.round(cost * 1e6) / 1e6 };
}
