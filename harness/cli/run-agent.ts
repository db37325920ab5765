import type { TokenUsage } from '../../shared/engine-events.js';
import type { RunResult, SystemInit } from '../../shared/run-result.js';
import { createAskUserTool } from '../agents/ask-user-tool.js';
import { createSpawnAgentTool, type SpawnAgentToolOptions } from '../agents/spawn-agent-tool.js';
import { createDemoProvider, DEMO_MODEL } from '../demo/demo-provider.js';
import { createDemoWorkspace, type DemoWorkspace } from '../demo/demo-workspace.js';
import { createCollectingEmitter } from '../emitters/collecting-emitter.js';
import { createJsonLinesEmitter } from '../emitters/json-lines-emitter.js';
import { createTerminalEmitter } from '../emitters/terminal-emitter.js';
import { createCommandInbox } from '../engine/command-inbox.js';
import { Engine } from '../engine/engine.js';
import type { ApprovalMode, Emitter, MetaTool } from '../engine/engine-types.js';
import { describeInstructions, loadProjectInstructions } from '../instructions/load-project-instructions.js';
import { createAnthropicProvider } from '../provider/anthropic-provider.js';
import { DEFAULT_MODEL, estimateCostUsd } from '../provider/model-catalog.js';
import type { ModelProvider } from '../provider/model-provider.js';
import { skateVersion } from '../skate-version.js';
import { previewPaint } from './approval-preview.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { createHeadlessResponder } from './headless-responder.js';
import { note } from './note.js';
import { openAgentExecutor } from './open-agent-executor.js';
import { type ExecutorOptions, resolveWorkspace } from './open-executor.js';
import { openRunSession, type SessionFlags } from './open-run-session.js';
import { readStdin } from './read-stdin.js';
import { runSummaryLine } from './run-summary-line.js';
import { createSandboxNotes } from './sandbox-notes.js';
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
  let demo: DemoWorkspace | undefined;
  if (apiKey) {
    provider = createAnthropicProvider({
      apiKey,
      ...(process.env.ANTHROPIC_BASE_URL && { baseURL: process.env.ANTHROPIC_BASE_URL }),
      ...(options.verbose && { onDebug: note }),
    });
    model = options.model ?? DEFAULT_MODEL;
  } else {
    // Everything that can refuse the run is checked before the demo's folder is made.
    if (options.sessionFlags?.continueSession || options.sessionFlags?.resume) {
      throw new UsageError('the demo (ANTHROPIC_API_KEY is not set) has no session to continue');
    }
    demo = await createDemoWorkspace();
    note(
      'ANTHROPIC_API_KEY is not set: running the demo (a scripted model; the executor and sandbox are real).',
    );
    note(`demo workspace: ${demo.dir} (removed after the run)`);
    provider = createDemoProvider({ outsidePath: demo.outsidePath });
    model = DEMO_MODEL;
    prompt = 'Show what Skate does.';
    executorOptions = { ...options, policy: 'execute', workspace: demo.dir, executor: undefined };
  }
  try {
    return await runWith(options, { provider, model, prompt, executorOptions, started, demo });
  } finally {
    await demo?.remove();
  }
}

interface RunSetup {
  provider: ModelProvider;
  model: string;
  prompt: string | undefined;
  executorOptions: ExecutorOptions;
  started: number;
  demo: DemoWorkspace | undefined;
}

async function runWith(options: RunAgentOptions, setup: RunSetup): Promise<number> {
  const { provider, model, prompt, executorOptions, started, demo } = setup;

  // Sessions and instructions live in the local workspace, even when tools run on a remote executor.
  const localWorkspace = await resolveWorkspace(executorOptions.workspace);
  const session = await openRunSession(
    options.sessionFlags ?? {},
    {
      workspace: localWorkspace,
      model,
      policy: options.policyOverride ?? executorOptions.policy,
    },
    note,
  );
  const sandboxNotes = createSandboxNotes({ verbose: options.verbose ?? false, write: note });
  const { executor, policy } = await openAgentExecutor(
    executorOptions,
    options.prepareWorkspace,
    sandboxNotes,
  ).catch(async (error: unknown) => {
    await session.close();
    throw error;
  });
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const answers = options.answers ? [...options.answers] : undefined;
  const canAsk = interactive || (answers?.length ?? 0) > 0;
  try {
    const health = await executor.health();
    if (options.outputFormat === 'text') {
      const network = executorOptions.network ? ` · network ${executorOptions.network} for this run` : '';
      const added = executorOptions.addDirs?.length
        ? ` · also writable for this run: ${executorOptions.addDirs.join(', ')}`
        : '';
      note(
        `policy ${health.policy}${network}${added} · sandbox ${health.enforcement} · workspace ${health.workspace}`,
      );
    }
    const appended = joined(options.appendSystemPrompt, options.systemPromptAddition);
    const instructions = await loadProjectInstructions({ workspace: localWorkspace });
    if (options.verbose) note(describeInstructions(instructions.files));
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
            projectInstructions: instructions.text,
            maxDepth,
            // A deny-writes run must not write through a child (an asking one asks before each spawn).
            readOnlyChildren: options.subagentSettings?.readOnly || options.approval === 'deny-writes',
            diagnosticTools: options.diagnosticTools ?? false,
            sessionForChild: options.sessionForChild ?? session.forChild,
            sandboxNotes,
            ...(session.writer && { parentSessionId: session.writer.header.id }),
          }),
        );
      } else if (options.verbose) {
        note('no sub-agents with a remote executor: its policy is not known here to narrow');
      }
    }
    if (options.alwaysOfferAskUser || canAsk) {
      metaTools.push(createAskUserTool({ canAsk, unanswered: unansweredReason(interactive, answers) }));
    }

    const controller = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      if (++interrupts > 1) process.exit(EXIT.interrupted);
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
    if (jsonLines) {
      const offered = [
        ...(await executor.listTools()).map((tool) => tool.name),
        ...metaTools.map((tool) => tool.definition.name),
      ];
      const init: SystemInit = {
        type: 'system',
        subtype: 'init',
        ...(session.writer && { sessionId: session.writer.header.id }),
        model,
        policy: health.policy,
        ...(policy && { network: policy.network.mode }),
        sandbox: health.enforcement,
        workspace: health.workspace,
        tools: offered,
        version: skateVersion(),
      };
      process.stdout.write(`${JSON.stringify(init)}\n`);
    }
    const emitter = createHeadlessResponder(base, {
      send,
      interactive,
      note,
      onInterrupt: onSigint,
      paint: previewPaint(process.stderr.isTTY === true && !process.env.NO_COLOR),
      ...(answers && { answers }),
    });

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
          ...(instructions.text && { projectInstructions: instructions.text }),
          ...(appended && { appendSystemPrompt: appended }),
          maxTurns: options.maxTurns,
          approval: options.approval,
          ...(options.approval === 'ask' && !interactive && { approvalUnattended: true }),
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
      } else {
        note(runSummaryLine(result));
      }
      await options.afterRun?.({ workspace: health.workspace, status: outcome.status });
      if (demo) {
        const { lines, escaped } = await demo.check();
        for (const line of lines) note(line);
        if (escaped) return EXIT.error;
      }
      return exitCodeFor(outcome.status);
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

/** What the model hears when ask_user gets no answer, said as what happened. */
function unansweredReason(interactive: boolean, answers: string[][] | undefined): string | undefined {
  if (interactive) return 'The user left the question unanswered.';
  if (answers) {
    return 'The recorded answers for this headless run (--answers) have run out, and no one is attached to answer more.';
  }
  return undefined;
}
