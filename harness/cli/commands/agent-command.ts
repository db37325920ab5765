import { anthropicModel, runSettingsFrom } from '../agent-settings-from-flags.js';
import { agentFlags, type CommandMain, parseAgentArgs } from '../cli-flags.js';
import { readStdin } from '../read-stdin.js';
import { runHeadless } from '../run-headless.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

/**
 * `skate -p "task"`: one agent run, headless, with spawn_agent unless
 * `--no-subagents`. Without ANTHROPIC_API_KEY it runs the first-run demo.
 * Without a task on a terminal (`skate`, `skate --continue`): the interactive UI.
 */
export const run: CommandMain = async (args) => {
  const { values, positionals } = parseAgentArgs(args);
  if (values.help) return help();
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument: ${positionals[0]} (quote the task: -p "…")`);
  const flags = await agentFlags(values);
  const apiKey = process.env.ANTHROPIC_API_KEY;
  // No task, and a person at a terminal: the full-screen UI. Piped stdin or -p stays headless.
  if (flags.prompt === undefined && process.stdin.isTTY && process.stdout.isTTY) {
    if (!apiKey)
      throw new UsageError(
        'the interactive UI needs ANTHROPIC_API_KEY (skate -p "…" runs the demo without it)',
      );
    const { runInteractive } = await import('../run-interactive.js');
    return runInteractive(runSettingsFrom(flags, anthropicModel(flags, apiKey)));
  }
  if (!apiKey) {
    const { runDemo } = await import('../../demo/run-demo.js');
    return runDemo(flags);
  }
  const prompt = flags.prompt ?? (process.stdin.isTTY ? undefined : (await readStdin()).trim() || undefined);
  if (!prompt) throw new UsageError('give the task with -p "…" or on stdin');
  return runHeadless({
    settings: runSettingsFrom(flags, anthropicModel(flags, apiKey)),
    prompt,
    outputFormat: flags.outputFormat,
    answers: flags.answers,
  });
};
