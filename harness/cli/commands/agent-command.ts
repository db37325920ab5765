import { contextWindow, DEFAULT_MODEL } from '../../provider/model-catalog.js';
import type { ModelProvider } from '../../provider/model-provider.js';
import { createRunRecorder } from '../../replay/run-recorder.js';
import type { RunReplay } from '../../replay/run-replay.js';
import type { ModelSettings } from '../../runtime/agent-settings.js';
import { traceStart } from '../../start-trace.js';
import { modelFrom, runSettingsFrom, wantsDemo } from '../agent-settings-from-flags.js';
import { type AgentRunFlags, agentFlags, type CommandMain, parseAgentArgs } from '../cli-flags.js';
import { EXIT } from '../exit-codes.js';
import { headlessAgent } from '../headless-agent.js';
import { readStdin } from '../read-stdin.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

/**
 * `skate -p "task"`, `skate -c -p "task"`, `echo task | skate -p` (Claude Code's shape: -p/--print
 * is a switch, the task the positional argument or stdin, flags in any order): one agent run,
 * headless, with spawn_agent unless `--no-subagents`. Without ANTHROPIC_API_KEY it runs the
 * first-run demo. Without -p on a terminal (`skate`, `skate --continue`, `skate "task"`): the
 * interactive UI, starting on the task when one is given.
 */
export const run: CommandMain = (args) => runAgent(args);

/** What `skate replay` puts in place of the model and, unless it re-executes them, of the tools. */
export interface ReplayMode {
  replay: RunReplay;
  /** Said on stderr once the run ended: whether it went as recorded. */
  report(): boolean;
}

/** The agent command, or a recorded run of it again (`skate replay`: no model, the record's answers). */
export async function runAgent(args: string[], replay?: ReplayMode): Promise<number> {
  traceStart('cli: agent command loaded');
  const { values, positionals } = parseAgentArgs(args);
  if (values.help) return help();
  if (
    (values.record !== undefined || replay) &&
    (!values.print || values['input-format'] === 'stream-json')
  ) {
    throw new UsageError(
      `${replay ? 'skate replay' : '--record'} runs one headless prompt: use it with -p "task" (not the terminal UI, not --input-format stream-json)`,
    );
  }
  const prompt = positionals.length > 0 ? positionals.join(' ') : undefined;
  const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  if (!values.print && prompt !== undefined && !terminal) {
    const example = `skate ${values.continue ? '-c ' : ''}-p "${prompt}"`;
    throw new UsageError(`no terminal for the interactive UI; run headless with ${example}`);
  }
  const flags = await agentFlags(values);
  // No -p, and a person at a terminal: the full-screen UI. Piped stdin or -p stays headless.
  if (!values.print && terminal) {
    const model = modelFrom(
      flags,
      'the interactive UI needs ANTHROPIC_API_KEY (skate -p runs the demo without it)',
    );
    const { runInteractive } = await import('../run-interactive.js');
    return runInteractive(runSettingsFrom(flags, model), prompt);
  }
  if (!replay && wantsDemo(flags)) {
    const { runDemo } = await import('../../demo/run-demo.js');
    return runDemo(flags);
  }
  if (flags.inputFormat === 'stream-json') {
    if (prompt !== undefined) {
      throw new UsageError(
        'with --input-format stream-json the prompts come on stdin; drop the task argument',
      );
    }
    return headlessAgent({
      settings: runSettingsFrom(flags, modelFrom(flags, 'set ANTHROPIC_API_KEY to run an agent')),
      prompt: '',
      streamInput: true,
      outputFormat: flags.outputFormat,
      answers: flags.answers,
      verbose: flags.verbose,
      outputSchema: flags.outputSchema,
    });
  }
  const task = prompt ?? (process.stdin.isTTY ? undefined : (await readStdin()).trim() || undefined);
  if (!task) throw new UsageError('give the task: skate -p "task", or on stdin: echo task | skate -p');
  if (replay || values.record !== undefined) {
    // A sub-agent's turns interleave with its parent's: not recorded yet, so a recorded run has none.
    flags.subagents = false;
  }
  const model = replay
    ? replayModel(flags, replay.replay)
    : modelFrom(flags, 'set ANTHROPIC_API_KEY to run an agent');
  const settings = runSettingsFrom(flags, model);
  if (replay) settings.wrapTools = (host) => replay.replay.tools(host);
  if (values.record !== undefined) {
    // The command line to run again: the prompt read from stdin goes in as the argument.
    const recorder = createRunRecorder(values.record, [
      ...withoutRecord(args),
      ...(prompt === undefined ? [task] : []),
    ]);
    settings.model = { ...settings.model, provider: async () => recorder.provider(await providerOf(model)) };
    settings.wrapTools = (host) => recorder.tools(host);
  }
  traceStart('cli: flags resolved');
  if (replay) {
    const code = await headlessAgent({
      settings,
      prompt: task,
      outputFormat: flags.outputFormat,
      answers: flags.answers,
      verbose: flags.verbose,
      outputSchema: flags.outputSchema,
    });
    // A run that went otherwise than recorded fails, so CI sees the change.
    return replay.report() || code !== 0 ? code : EXIT.error;
  }
  return headlessAgent({
    settings,
    prompt: task,
    outputFormat: flags.outputFormat,
    answers: flags.answers,
    verbose: flags.verbose,
    outputSchema: flags.outputSchema,
  });
}

/** The model of a replay: the record answers, under the recorded model's name and window. */
function replayModel(flags: AgentRunFlags, replay: RunReplay): ModelSettings {
  const name = flags.model ?? DEFAULT_MODEL;
  return {
    provider: replay.provider(contextWindow),
    name,
    maxTokens: flags.maxTokens,
    thinkingBudgetTokens: flags.thinkingBudgetTokens,
  };
}

async function providerOf(model: ModelSettings): Promise<ModelProvider> {
  const { provider } = model;
  return typeof provider === 'function' ? provider() : provider;
}

/** The arguments less `--record FILE` / `--record=FILE`. */
function withoutRecord(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      kept.push(...args.slice(i));
      break;
    }
    if (arg === '--record') i++;
    else if (!arg.startsWith('--record=')) kept.push(arg);
  }
  return kept;
}
