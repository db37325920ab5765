import { existsSync } from 'node:fs';
import type { TokenUsage } from '../../../shared/engine-events.js';
import type { RunResult } from '../../../shared/run-result.js';
import { createDemoProvider, DEMO_MODEL } from '../../demo/demo-provider.js';
import { createDemoWorkspace } from '../../demo/demo-workspace.js';
import { createCollectingEmitter } from '../../emitters/collecting-emitter.js';
import { createJsonLinesEmitter } from '../../emitters/json-lines-emitter.js';
import { createTerminalEmitter } from '../../emitters/terminal-emitter.js';
import { createCommandInbox } from '../../engine/command-inbox.js';
import { Engine } from '../../engine/engine.js';
import type { ApprovalMode, Emitter } from '../../engine/engine-types.js';
import { createAnthropicProvider } from '../../provider/anthropic-provider.js';
import { DEFAULT_MODEL, estimateCostUsd } from '../../provider/model-catalog.js';
import type { ModelProvider } from '../../provider/model-provider.js';
import { createHeadlessResponder } from '../headless-responder.js';
import { type ExecutorOptions, openExecutor } from '../open-executor.js';
import { readStdin } from '../read-stdin.js';
import { UsageError } from '../usage-error.js';

export type OutputFormat = 'text' | 'json' | 'stream-json';

export interface AgentCommandOptions extends ExecutorOptions {
  prompt?: string | undefined;
  outputFormat: OutputFormat;
  model?: string | undefined;
  maxTurns: number;
  maxTokens: number;
  thinkingBudgetTokens?: number | undefined;
  approval: ApprovalMode;
  systemPrompt?: string | undefined;
  appendSystemPrompt?: string | undefined;
}

const EXIT_BY_STATUS: Record<RunResult['status'], number> = { complete: 0, loop_cap: 0, error: 1, cancelled: 130 };

function note(line: string): void {
  process.stderr.write(`skate: ${line}\n`);
}

/**
 * `skate -p "task"`: one agent run, headless. The model is reached only from
 * here (the API key never leaves this process); tools only through the
 * executor. Without ANTHROPIC_API_KEY it runs the first-run demo.
 */
export async function agentCommand(options: AgentCommandOptions): Promise<number> {
  const started = performance.now();
  const apiKey = process.env.ANTHROPIC_API_KEY;
  let prompt = options.prompt;
  if (prompt === undefined && !process.stdin.isTTY) prompt = (await readStdin()).trim();
  if (apiKey && !prompt) throw new UsageError('give the task with -p "…" or on stdin');

  let provider: ModelProvider;
  let model: string;
  let executorOptions: ExecutorOptions = options;
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
    note('ANTHROPIC_API_KEY is not set: running the demo (a scripted model; the executor and sandbox are real).');
    note(`demo workspace: ${demo.dir}`);
    provider = createDemoProvider({ outsidePath: demo.outsidePath });
    demoOutside = demo.outsidePath;
    model = DEMO_MODEL;
    prompt = 'Show what Skate does.';
    executorOptions = { ...options, policy: 'execute', workspace: demo.dir, executor: undefined };
  }

  const executor = await openExecutor(executorOptions);
  const health = await executor.health();
  if (options.outputFormat === 'text') {
    note(`policy ${health.policy} · sandbox ${health.enforcement} · workspace ${health.workspace}`);
  }
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(130);
    note('interrupting… (Ctrl-C again to quit at once)');
    controller.abort();
  };
  process.on('SIGINT', onSigint);

  const { inbox, send } = createCommandInbox();
  const jsonLines = options.outputFormat === 'stream-json' ? createJsonLinesEmitter(process.stdout) : undefined;
  const terminal =
    options.outputFormat === 'text' ? createTerminalEmitter({ stdout: process.stdout, stderr: process.stderr }) : undefined;
  const base: Emitter = jsonLines ?? terminal ?? createCollectingEmitter();
  const emitter = createHeadlessResponder(base, {
    send,
    interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    note,
  });

  try {
    const outcome = await new Engine().run(
      { provider, tools: executor, inbox, signal: controller.signal },
      {
        prompt: { text: prompt ?? '' },
        model,
        maxTokens: options.maxTokens,
        ...(options.thinkingBudgetTokens && { thinkingBudgetTokens: options.thinkingBudgetTokens }),
        ...(options.systemPrompt && { systemPrompt: options.systemPrompt }),
        ...(options.appendSystemPrompt && { appendSystemPrompt: options.appendSystemPrompt }),
        maxTurns: options.maxTurns,
        approval: options.approval,
        workspace: health.workspace,
        policyName: health.policy,
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
    if (demoOutside) {
      const escaped = existsSync(demoOutside);
      note(escaped ? `DEMO FAILED: ${demoOutside} exists on the host` : `checked on the host: ${demoOutside} does not exist`);
      if (escaped) return 1;
    }
    return EXIT_BY_STATUS[outcome.status];
  } finally {
    process.off('SIGINT', onSigint);
    await executor.shutdown();
  }
}

function costOf(model: string, usage: TokenUsage): { costUsd?: number } {
  const cost = estimateCostUsd(model, usage);
  return cost === undefined ? {} : { costUsd: Math.round(cost * 1e6) / 1e6 };
}
