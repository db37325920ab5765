import { anthropicModel, runSettingsFrom } from '../agent-settings-from-flags.js';
import { agentFlags, type CommandMain, parseAgentArgs } from '../cli-flags.js';
import { readStdin } from '../read-stdin.js';
import { runHeadless } from '../run-headless.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

/**
 * `skate -p "task"`: one agent run, headless, with spawn_agent unless
 * `--no-subagents`. Without ANTHROPIC_API_KEY it runs the first-run demo.
 */
export const run: CommandMain = async (args) => {
  const { values, positionals } = parseAgentArgs(args);
  if (values.help) return help();
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument: ${positionals[0]} (quote the task: -p "…")`);
  const flags = await agentFlags(values);
  const apiKey = process.env.ANTHROPIC_API_KEY;
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
