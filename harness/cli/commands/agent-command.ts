import { traceStart } from '../../start-trace.js';
import { modelFrom, runSettingsFrom, wantsDemo } from '../agent-settings-from-flags.js';
import { agentFlags, type CommandMain, parseAgentArgs } from '../cli-flags.js';
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
export const run: CommandMain = async (args) => {
  traceStart('cli: agent command loaded');
  const { values, positionals } = parseAgentArgs(args);
  if (values.help) return help();
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
  if (wantsDemo(flags)) {
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
  const settings = runSettingsFrom(flags, modelFrom(flags, 'set ANTHROPIC_API_KEY to run an agent'));
  traceStart('cli: flags resolved');
  return headlessAgent({
    settings,
    prompt: task,
    outputFormat: flags.outputFormat,
    answers: flags.answers,
    verbose: flags.verbose,
    outputSchema: flags.outputSchema,
  });
};
