import { networkFromSetting, networkLabel, settingFromNetwork } from '../../shared/policy.js';
import type { RunResult, SystemInit } from '../../shared/run-result.js';
import { waitingForBackground } from '../agents/background-agents.js';
import type { ResultContract } from '../agents/result-contracts.js';
import { createCollectingEmitter } from '../emitters/collecting-emitter.js';
import { createJsonLinesEmitter } from '../emitters/json-lines-emitter.js';
import { createMessageLines } from '../emitters/message-lines.js';
import { createTerminalEmitter } from '../emitters/terminal-emitter.js';
import type { Emitter } from '../engine/engine-types.js';
import { unknownRuleTools } from '../engine/tool-rules.js';
import { describeInstructions } from '../instructions/load-project-instructions.js';
import { expandPromptCommand } from '../mcp/expand-prompt-command.js';
import { type AgentRunResult, type AgentSession, createAgentSession } from '../runtime/agent-session.js';
import type { StartedAgent } from '../runtime/start-agent.js';
import { deleteSession } from '../session/delete-session.js';
import { skateVersion } from '../skate-version.js';
import { traceStart } from '../start-trace.js';
import { jsonFor } from '../terminal/inert-text.js';
import type { RunSettings } from './agent-settings-from-flags.js';
import { previewPaint } from './approval-preview.js';
import type { OutputFormat } from './cli-flags.js';
import { EXIT, exitCodeFor } from './exit-codes.js';
import { createFinalResult, emptyEnding } from './final-result.js';
import { createHeadlessResponder } from './headless-responder.js';
import { note } from './note.js';
import { outputClosed } from './output-closed.js';
import { runSummaryLine } from './run-summary-line.js';
import { streamJsonPrompts } from './stream-json-input.js';
import { watchTermination } from './termination.js';
import { UsageError } from './usage-error.js';

export interface HeadlessRun {
  settings: RunSettings;
  prompt: string;
  /**
   * `--input-format stream-json`: the prompts come as JSON lines on stdin instead (`prompt` is
   * unused), each run once the one before ended, each ending with its own result line.
   */
  streamInput?: boolean | undefined;
  outputFormat: OutputFormat;
  /** Recorded ask_user answers, consumed in order. */
  answers?: string[][] | undefined;
  /** `--verbose`: also list the project instructions files loaded. */
  verbose?: boolean | undefined;
  /** `--output-schema`: the answer must match it; the result carries it as `structured_output`. */
  outputSchema?: ResultContract | undefined;
  /** The agent's start, when the caller began it (`startAgent` on these settings, with `onNote: note`). */
  started?: Promise<StartedAgent> | undefined;
  /** Runs after the run, before the agent closes; may print, and may turn the exit code into a failure. */
  afterRun?(session: AgentSession, result: AgentRunResult): Promise<number | undefined> | number | undefined;
}

/** After SIGTERM, how long the run may take to stop before its result is written without it. */
const TERMINATE_GRACE_MS = 5_000;

/**
 * One headless agent run on the agent runtime (`skate -p`, `skate plan`,
 * `skate execute`, the demo): events printed in the chosen format, requests
 * answered by the person at the terminal or by rule, Ctrl-C an interrupt.
 * The result (json, stream-json's last line, text's summary) is written
 * exactly once whatever ends the run: its own end, SIGTERM, a failure to
 * start, a crash inside the harness. Returns the exit code (`exit-codes.ts`).
 */
export async function runHeadless(run: HeadlessRun): Promise<number> {
  const started = performance.now();
  const terminated = watchTermination();
  const wasTerminated = (): boolean => terminated.aborted;
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const answers = run.answers ? [...run.answers] : undefined;
  const canAsk = interactive || (answers?.length ?? 0) > 0;
  const jsonLines = run.outputFormat === 'stream-json' ? createJsonLinesEmitter(process.stdout) : undefined;
  const terminal =
    run.outputFormat === 'text'
      ? createTerminalEmitter({ stdout: process.stdout, stderr: process.stderr })
      : undefined;
  let session: AgentSession | undefined;
  const model = (): string => session?.model ?? run.settings.model.name;
  const messages = jsonLines && createMessageLines(model, () => session?.sessionId);
  const streamed: Emitter | undefined = jsonLines && {
    emit(event) {
      jsonLines.emit(event);
      for (const line of messages?.after(event) ?? []) jsonLines.line(line);
    },
  };
  const base: Emitter = streamed ?? terminal ?? createCollectingEmitter();
  const final = createFinalResult(started, (result) => {
    terminal?.close();
    if (jsonLines) jsonLines.line(result);
    else if (run.outputFormat === 'json') process.stdout.write(`${jsonFor(process.stdout, result, 2)}\n`);
    else note(runSummaryLine(result));
  });
  let interrupts = 0;
  const onSigint = (): void => {
    if (++interrupts > 1) process.exit(EXIT.interrupted);
    note('interrupting… (Ctrl-C again to quit at once)');
    session?.interrupt();
  };
  // A crash inside the harness (a throw nobody catches) still ends with the result line and exit 1.
  const onCrash = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    note(`internal error: ${error instanceof Error ? (error.stack ?? message) : message}`);
    final.write(emptyEnding(model(), 'error', 'crash', `Skate failed: ${message}`));
    void (jsonLines?.flush() ?? Promise.resolve()).finally(() => process.exit(EXIT.error));
  };
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  let graceTimer: NodeJS.Timeout | undefined;
  const onTerminate = (): void => {
    note('terminated: stopping the run');
    session?.interrupt();
    graceTimer = setTimeout(() => {
      final.write(
        emptyEnding(model(), 'cancelled', 'terminated', 'terminated (SIGTERM)', session?.sessionId),
      );
      void (jsonLines?.flush() ?? Promise.resolve()).finally(() => process.exit(EXIT.terminated));
    }, TERMINATE_GRACE_MS);
    graceTimer.unref();
  };
  terminated.addEventListener('abort', onTerminate, { once: true });
  const events = createHeadlessResponder(base, {
    send: (command) => session?.answer(command),
    interactive,
    note,
    onInterrupt: onSigint,
    paint: previewPaint(process.stderr.isTTY === true && !process.env.NO_COLOR),
    ...(answers && { answers }),
  });
  const unhook = (): void => {
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    terminated.removeEventListener('abort', onTerminate);
    clearTimeout(graceTimer);
  };
  try {
    session = await createAgentSession(
      {
        ...run.settings,
        // One result line per prompt: it must carry the background children's results, so the run waits for them.
        subagents: waitingForBackground(run.settings.subagents),
        answerer: canAsk ? 'user' : 'rules',
        ...(!interactive && { approvalUnattended: true }),
        unansweredReason: unansweredReason(interactive, answers),
        events,
        onNote: note,
      },
      run.started,
    );
  } catch (error) {
    // Nothing started: the error is main's to print and map to an exit code; the result says it too.
    if (run.outputFormat !== 'text') {
      const message = error instanceof Error ? error.message : String(error);
      final.write(emptyEnding(model(), 'error', 'start', message));
      await jsonLines?.flush();
    }
    unhook();
    throw error;
  }
  traceStart('cli: agent session created');
  const agent = session;
  process.on('SIGINT', onSigint);
  // Nobody reads the output any more (`skate -p … | head`): stop the run, quietly, as SIGPIPE would.
  const onOutputClosed = (): void => agent.interrupt();
  outputClosed().addEventListener('abort', onOutputClosed, { once: true });
  if (outputClosed().aborted) agent.interrupt();
  let forgetSession = false;
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
    const rules = run.settings.toolRules;
    if (rules) {
      // A typo in a rule must not silently allow what it meant to refuse: nothing runs.
      const offered = await agent.toolNames();
      const unknown = unknownRuleTools(rules, [...offered.executor, ...offered.harness]);
      if (unknown) throw new UsageError(`--allowedTools/--disallowedTools: ${unknown}`);
    }
    if (jsonLines) {
      const offered = await agent.toolNames();
      const mcpServers = agent.mcpServers().map(({ name, state }) => ({
        name,
        status: state.status,
        ...(state.status === 'failed' && { error: state.reason, failedAt: state.at }),
      }));
      const init: SystemInit = {
        type: 'system',
        subtype: 'init',
        ...(agent.sessionId && { sessionId: agent.sessionId, session_id: agent.sessionId }),
        model: agent.model,
        policy: health.policy,
        ...(agent.policy && { network: settingFromNetwork(agent.policy.network) }),
        sandbox: health.enforcement,
        workspace: health.workspace,
        cwd: health.workspace,
        tools: [...offered.executor, ...offered.harness],
        ...(mcpServers.length > 0 && { mcp_servers: mcpServers }),
        version: skateVersion(),
      };
      jsonLines.line(init);
    }
    traceStart('cli: prompt');
    const prompts: AsyncIterable<string> | Iterable<string> = run.streamInput
      ? streamJsonPrompts(process.stdin, () => agent.interrupt(), note)
      : [run.prompt];
    let outcome: AgentRunResult | undefined;
    let result: RunResult | undefined;
    for await (const text of prompts) {
      if (terminated.aborted) break;
      final.next();
      // `/mcp__server__prompt a b`: the server's prompt is the turn, as in the terminal UI and ACP.
      const expanded = await expandPromptCommand(agent.promptCommands(), text, terminated);
      if (expanded.kind === 'error') {
        if (expanded.cause === 'usage') throw new UsageError(expanded.error);
        final.write(emptyEnding(agent.model, 'error', 'mcp_prompt', expanded.error, agent.sessionId));
        await jsonLines?.flush();
        return EXIT.error;
      }
      outcome = await agent.prompt(expanded.kind === 'prompt' ? expanded.text : text, {
        ...(run.outputSchema && { outputSchema: run.outputSchema }),
        ...(expanded.kind === 'prompt' && expanded.images.length > 0 && { images: expanded.images }),
      });
      // A run that failed before the model said anything (a 401, a 529) leaves no empty session to resume.
      forgetSession =
        run.settings.session.kind === 'new' &&
        outcome.status === 'error' &&
        !outcome.messages.some((message) => message.role === 'assistant');
      result = final.write({
        ...outcome,
        ...(forgetSession && { sessionId: undefined }),
        // Read again: SIGTERM may have come during the prompt.
        ...(wasTerminated() && outcome.status === 'cancelled' && { errorCode: 'terminated' }),
      });
      await jsonLines?.flush();
      // A multi-turn run goes on after a completed or interrupted prompt; anything else ends it.
      if (outcome.status !== 'complete' && !(run.streamInput && outcome.status === 'cancelled')) break;
    }
    if (wasTerminated() && result?.errorCode !== 'terminated') {
      final.next();
      final.write(
        emptyEnding(agent.model, 'cancelled', 'terminated', 'terminated (SIGTERM)', agent.sessionId),
      );
      await jsonLines?.flush();
      return EXIT.terminated;
    }
    if (!outcome || !result) {
      throw new UsageError('--input-format stream-json: stdin ended before any {"type":"user",…} line');
    }
    const override = await run.afterRun?.(agent, outcome);
    return override ?? exitCodeFor(result);
  } catch (error) {
    // A failure inside the harness during the run: the result says so, main prints it.
    final.write(
      emptyEnding(
        agent.model,
        'error',
        error instanceof UsageError ? 'usage' : 'crash',
        error instanceof Error ? error.message : String(error),
        agent.sessionId,
      ),
    );
    await jsonLines?.flush();
    throw error;
  } finally {
    process.off('SIGINT', onSigint);
    outputClosed().removeEventListener('abort', onOutputClosed);
    const id = agent.sessionId;
    await agent.close();
    if (forgetSession && id) await deleteSession(agent.workspace, id).catch(() => undefined);
    unhook();
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
