import type { TokenUsage } from '../../shared/engine-events.js';
import type { RunResult } from '../../shared/run-result.js';
import { createCollectingEmitter } from '../emitters/collecting-emitter.js';
import { createJsonLinesEmitter } from '../emitters/json-lines-emitter.js';
import { createTerminalEmitter } from '../emitters/terminal-emitter.js';
import type { Emitter } from '../engine/engine-types.js';
import { estimateCostUsd } from '../provider/model-catalog.js';
import { type AgentRunResult, type AgentSession, createAgentSession } from '../runtime/agent-session.js';
import type { RunSettings } from './agent-settings-from-flags.js';
import type { OutputFormat } from './cli-flags.js';
import { createHeadlessResponder } from './headless-responder.js';
import { note } from './note.js';

export interface HeadlessRun {
  settings: RunSettings;
  prompt: string;
  outputFormat: OutputFormat;
  /** Recorded ask_user answers, consumed in order. */
  answers?: string[][] | undefined;
  /** Runs after the run, before the agent closes; may print, and may turn the exit code into a failure. */
  afterRun?(session: AgentSession, result: AgentRunResult): Promise<number | undefined> | number | undefined;
}

const EXIT_BY_STATUS: Record<RunResult['status'], number> = {
  complete: 0,
  loop_cap: 0,
  error: 1,
  cancelled: 130,
};

/**
 * One headless agent run on the agent runtime (`skate -p`, `skate plan`,
 * `skate execute`, the demo): events printed in the chosen format, requests
 * answered by the person at the terminal or by rule, Ctrl-C an interrupt.
 * Returns the exit code.
 */
export async function runHeadless(run: HeadlessRun): Promise<number> {
  const started = performance.now();
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const answers = run.answers ? [...run.answers] : undefined;
  const canAsk = interactive || (answers?.length ?? 0) > 0;
  const jsonLines = run.outputFormat === 'stream-json' ? createJsonLinesEmitter(process.stdout) : undefined;
  const terminal =
    run.outputFormat === 'text'
      ? createTerminalEmitter({ stdout: process.stdout, stderr: process.stderr })
      : undefined;
  const base: Emitter = jsonLines ?? terminal ?? createCollectingEmitter();
  let session: AgentSession | undefined;
  const events = createHeadlessResponder(base, {
    send: (command) => session?.answer(command),
    interactive,
    note,
    ...(answers && { answers }),
  });
  session = await createAgentSession({
    ...run.settings,
    answerer: canAsk ? 'user' : 'rules',
    events,
    onNote: note,
  });
  const agent = session;
  let interrupts = 0;
  const onSigint = (): void => {
    if (++interrupts > 1) process.exit(130);
    note('interrupting… (Ctrl-C again to quit at once)');
    agent.interrupt();
  };
  process.on('SIGINT', onSigint);
  try {
    if (run.outputFormat === 'text') {
      const health = await agent.health();
      note(`policy ${health.policy} · sandbox ${health.enforcement} · workspace ${health.workspace}`);
    }
    const outcome = await agent.prompt(run.prompt);
    terminal?.close();
    const result: RunResult = {
      type: 'result',
      status: outcome.status,
      finalMessage: outcome.finalMessage,
      turns: outcome.turns,
      toolCalls: outcome.toolCalls,
      usage: outcome.usage,
      ...costOf(outcome.model, outcome.usage),
      model: outcome.model,
      ...(outcome.sessionId && { sessionId: outcome.sessionId }),
      durationMs: Math.round(performance.now() - started),
      ...(outcome.error && { error: outcome.error }),
    };
    if (jsonLines) {
      await jsonLines.flush();
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else if (run.outputFormat === 'json') {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else if (outcome.status === 'error') {
      note(`the run failed: ${outcome.error ?? 'unknown error'}`);
    }
    const override = await run.afterRun?.(agent, outcome);
    return override ?? EXIT_BY_STATUS[outcome.status];
  } finally {
    process.off('SIGINT', onSigint);
    await agent.close();
  }
}

function costOf(model: string, usage: TokenUsage): { costUsd?: number } {
  const cost = estimateCostUsd(model, usage);
  return cost === undefined ? {} : { costUsd: Math.round(cost * 1e6) / 1e6 };
}
