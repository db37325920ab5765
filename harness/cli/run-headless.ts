import { networkFromSetting, networkLabel, settingFromNetwork } from '../../shared/policy.js';
import type { SystemInit } from '../../shared/run-result.js';
import { createCollectingEmitter } from '../emitters/collecting-emitter.js';
import { createJsonLinesEmitter } from '../emitters/json-lines-emitter.js';
import { createTerminalEmitter } from '../emitters/terminal-emitter.js';
import type { Emitter } from '../engine/engine-types.js';
import { describeInstructions } from '../instructions/load-project-instructions.js';
import { type AgentRunResult, type AgentSession, createAgentSession } from '../runtime/agent-session.js';
import { runResultOf } from '../runtime/run-result-of.js';
import type { StartedAgent } from '../runtime/start-agent.js';
import { skateVersion } from '../skate-version.js';
import { traceStart } from '../start-trace.js';
import { jsonFor } from '../terminal/inert-text.js';
import type { RunSettings } from './agent-settings-from-flags.js';
import { previewPaint } from './approval-preview.js';
import type { OutputFormat } from './cli-flags.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { createHeadlessResponder } from './headless-responder.js';
import { note } from './note.js';
import { outputClosed } from './output-closed.js';
import { runSummaryLine } from './run-summary-line.js';

export interface HeadlessRun {
  settings: RunSettings;
  prompt: string;
  outputFormat: OutputFormat;
  /** Recorded ask_user answers, consumed in order. */
  answers?: string[][] | undefined;
  /** `--verbose`: also list the project instructions files loaded. */
  verbose?: boolean | undefined;
  /** The agent's start, when the caller began it (`startAgent` on these settings, with `onNote: note`). */
  started?: Promise<StartedAgent> | undefined;
  /** Runs after the run, before the agent closes; may print, and may turn the exit code into a failure. */
  afterRun?(session: AgentSession, result: AgentRunResult): Promise<number | undefined> | number | undefined;
}

/**
 * One headless agent run on the agent runtime (`skate -p`, `skate plan`,
 * `skate execute`, the demo): events printed in the chosen format, requests
 * answered by the person at the terminal or by rule, Ctrl-C an interrupt.
 * Returns the exit code (`exit-codes.ts`).
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
  let interrupts = 0;
  const onSigint = (): void => {
    if (++interrupts > 1) process.exit(EXIT.interrupted);
    note('interrupting… (Ctrl-C again to quit at once)');
    session?.interrupt();
  };
  const events = createHeadlessResponder(base, {
    send: (command) => session?.answer(command),
    interactive,
    note,
    onInterrupt: onSigint,
    paint: previewPaint(process.stderr.isTTY === true && !process.env.NO_COLOR),
    ...(answers && { answers }),
  });
  session = await createAgentSession(
    {
      ...run.settings,
      answerer: canAsk ? 'user' : 'rules',
      ...(!interactive && { approvalUnattended: true }),
      unansweredReason: unansweredReason(interactive, answers),
      events,
      onNote: note,
    },
    run.started,
  );
  traceStart('cli: agent session created');
  const agent = session;
  process.on('SIGINT', onSigint);
  // Nobody reads the output any more (`skate -p … | head`): stop the run, quietly, as SIGPIPE would.
  const onOutputClosed = (): void => agent.interrupt();
  outputClosed().addEventListener('abort', onOutputClosed, { once: true });
  if (outputClosed().aborted) agent.interrupt();
  try {
    const health = await agent.executorSummary();
    if (run.outputFormat === 'text') {
      const executor = run.settings.executor;
      const local = executor.kind === 'local' ? executor : undefined;
      const network = local?.network
        ? ` · network ${networkLabel(networkFromSetting(local.network))} for this run`
        : '';
      const added = local?.addDirs?.length
        ? ` · also writable for this run: ${local.addDirs.join(', ')}`
        : '';
      note(
        `policy ${health.policy}${network}${added} · sandbox ${health.enforcement} · workspace ${health.workspace}`,
      );
    }
    if (run.verbose) note(describeInstructions(agent.instructionFiles));
    if (jsonLines) {
      const offered = await agent.toolNames();
      const init: SystemInit = {
        type: 'system',
        subtype: 'init',
        ...(agent.sessionId && { sessionId: agent.sessionId }),
        model: agent.model,
        policy: health.policy,
        ...(agent.policy && { network: settingFromNetwork(agent.policy.network) }),
        sandbox: health.enforcement,
        workspace: health.workspace,
        tools: [...offered.executor, ...offered.harness],
        version: skateVersion(),
      };
      process.stdout.write(`${jsonFor(process.stdout, init)}\n`);
    }
    traceStart('cli: prompt');
    const outcome = await agent.prompt(run.prompt);
    terminal?.close();
    const result = runResultOf(outcome, performance.now() - started);
    if (jsonLines) {
      await jsonLines.flush();
      process.stdout.write(`${jsonFor(process.stdout, result)}\n`);
    } else if (run.outputFormat === 'json') {
      process.stdout.write(`${jsonFor(process.stdout, result, 2)}\n`);
    } else {
      note(runSummaryLine(result));
    }
    const override = await run.afterRun?.(agent, outcome);
    return override ?? exitCodeFor(outcome.status);
  } finally {
    process.off('SIGINT', onSigint);
    outputClosed().removeEventListener('abort', onOutputClosed);
    await agent.close();
  }
}

/** What the model hears when ask_user gets no answer, said as what happened. */
function unansweredReason(interactive: boolean, answers: string[][] | undefined): string | undefined {
  if (interactive) return 'The user left the question unanswered.';
  if (answers) {
    return 'The recorded answers for this headless run (--answers) have run out, and no one is attached to answer more.';
  }
  return undefined;
}
