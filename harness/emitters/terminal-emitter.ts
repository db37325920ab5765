import type { EngineEvent } from '../../shared/engine-events.js';
import { describeNetworkDenial } from '../../shared/network-allowlist.js';
import type { Emitter } from '../engine/engine-types.js';
import { hookDecisionLine, isNotableHookDecision } from '../hooks/hook-decision-line.js';
import { inertStyledText } from '../terminal/inert-text.js';
import { inertValue } from '../terminal/inert-value.js';
import { argsSummary } from './args-summary.js';
import { mcpToolParts, toolLabel } from './mcp-tool-label.js';
import { resultSummary } from './result-summary.js';
import { createTerminalSpinner } from './terminal-spinner.js';

/** What the terminal emitter writes to: process.stdout and process.stderr, or test doubles. */
export interface TerminalStream {
  write(text: string): unknown;
  isTTY?: boolean;
  on?(event: 'error', listener: (error: Error) => void): unknown;
  off?(event: 'error', listener: (error: Error) => void): unknown;
}

export interface TerminalEmitterOptions {
  stdout: TerminalStream;
  stderr: TerminalStream;
  /** For NO_COLOR; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Also print tool output lines as they stream (dim, indented). Default false. */
  toolOutput?: boolean;
  spinnerIntervalMs?: number;
}

/** Renders a run for a person at a terminal. `close` stops the spinner, ends the last line and lets go of the streams. */
export interface TerminalEmitter extends Emitter {
  close(): void;
}

type Paint = (text: string) => string;
const plain: Paint = (text) => text;
const ansi =
  (open: number, close: number): Paint =>
  (text) =>
    `\x1b[${open}m${text}\x1b[${close}m`;

/**
 * The model's text goes to stdout as it streams; tool calls are dim
 * `▸ name args` lines with a short summary of their result under them; warnings and
 * errors go to stderr. Colour only on a TTY and never with NO_COLOR; the
 * spinner only on a TTY stderr, and only while the model is being waited for.
 * Sub-agents' text is not streamed: their tool calls are shown, tagged.
 *
 * Each event is made inert before it is looked at (`inertValue`): the model's text, tool names,
 * arguments, output and errors reach the terminal as visible text, never as control sequences.
 * Every write goes through `inertStyledText` as well, so only this emitter's own colours pass.
 */
export function createTerminalEmitter(options: TerminalEmitterOptions): TerminalEmitter {
  const { stdout, stderr } = options;
  const env = options.env ?? process.env;
  const noColor = (env.NO_COLOR ?? '') !== '';
  const outColor = Boolean(stdout.isTTY) && !noColor;
  const errColor = Boolean(stderr.isTTY) && !noColor;
  const dim = outColor ? ansi(2, 22) : plain;
  const red = outColor ? ansi(31, 39) : plain;
  const errRed = errColor ? ansi(31, 39) : plain;
  const errYellow = errColor ? ansi(33, 39) : plain;
  const errDim = errColor ? ansi(2, 22) : plain;

  let atLineStart = true;
  // A reader that went away (EPIPE) must not crash the process through an unhandled 'error'.
  let outGone = false;
  let errGone = false;
  const onOutError = (): void => {
    outGone = true;
  };
  const onErrError = (): void => {
    errGone = true;
  };
  stdout.on?.('error', onOutError);
  stderr.on?.('error', onErrError);
  const writeOut = (text: string): void => {
    if (outGone || text === '') return;
    stdout.write(inertStyledText(text));
    atLineStart = text.endsWith('\n');
  };
  /** The spinner's own `\r` is the one control this emitter writes unstyled: it gets the raw stream. */
  const writeErrRaw = (text: string): void => {
    if (!errGone) stderr.write(text);
  };
  const writeErr = (text: string): void => writeErrRaw(inertStyledText(text));
  const spinner = stderr.isTTY ? createTerminalSpinner(writeErrRaw, options.spinnerIntervalMs) : undefined;

  /** The call whose start line was printed last, so its result can go right under it without a name. */
  let lastStartedCall: string | undefined;

  const newline = (): void => {
    if (!atLineStart) writeOut('\n');
  };
  const spin = (label: string): void => {
    // Drawn with \r on the cursor's line: never over half a line of the model's text.
    if (spinner && (atLineStart || !stdout.isTTY)) spinner.start(label);
  };
  const stderrLine = (text: string): void => {
    spinner?.stop();
    if (stdout.isTTY) newline();
    writeErr(`${text}\n`);
  };
  const tag = (event: EngineEvent): string => (event.agent.length > 0 ? `[${event.agent.join('/')}] ` : '');

  const render = (event: EngineEvent): void => {
    const sub = event.agent.length > 0;
    switch (event.type) {
      case 'turn_start':
        if (!sub) spin('waiting for the model');
        return;
      case 'thinking_start':
        if (!sub) spin('thinking');
        return;
      case 'text_delta':
        if (sub) return;
        spinner?.stop();
        writeOut(event.text);
        lastStartedCall = undefined;
        return;
      case 'tool_call_start': {
        spinner?.stop();
        newline();
        const args = argsSummary(event.args, 80, { anyString: mcpToolParts(event.name) !== undefined });
        writeOut(dim(`${tag(event)}▸ ${toolLabel(event.name)}${args ? ` ${args}` : ''}`) + '\n');
        lastStartedCall = event.id;
        return;
      }
      case 'tool_output_line':
        if (options.toolOutput) {
          newline();
          writeOut(dim(`  │ ${event.text}`) + '\n');
          lastStartedCall = undefined;
        }
        return;
      case 'tool_call_result': {
        newline();
        const name = lastStartedCall === event.id ? '' : `${tag(event)}${event.name}: `;
        const [head = '(no output)', ...rest] = resultSummary(event);
        const lines = [`  ↳ ${name}${head}`, ...rest.map((line) => `    ${line}`)];
        writeOut(lines.map((line) => (event.isError ? red : dim)(line)).join('\n') + '\n');
        lastStartedCall = undefined;
        return;
      }
      case 'turn_end':
        spinner?.stop();
        if (!sub) newline();
        return;
      case 'compaction':
        stderrLine(
          errDim(`${tag(event)}· compacted ${event.summarizedMessages} earlier messages into a summary`),
        );
        return;
      case 'info':
        stderrLine(errDim(`${tag(event)}${event.message}`));
        return;
      case 'warn':
        stderrLine(errYellow(`${tag(event)}warning: ${event.message}`));
        return;
      case 'hook_decision':
        if (isNotableHookDecision(event)) stderrLine(errDim(`${tag(event)}${hookDecisionLine(event)}`));
        return;
      case 'network_denied':
        stderrLine(errYellow(`${tag(event)}${describeNetworkDenial(event)}`));
        return;
      case 'error':
        stderrLine(errRed(`${tag(event)}error: ${event.message}`));
        return;
      case 'approval_request':
      case 'ask_user_request':
      case 'loop_cap_reached':
        // The CLI asks the question; the spinner must not draw over it.
        spinner?.stop();
        return;
      default:
        // text_done, thinking_*, usage, context_usage: nothing to show as they stream.
        // action_blocked: the call's result line already says what was refused and why.
        return;
    }
  };

  return {
    emit: (event) => render(inertValue(event)),
    close() {
      spinner?.stop();
      newline();
      stdout.off?.('error', onOutError);
      stderr.off?.('error', onErrError);
    },
  };
}
