import { parseArgs } from 'node:util';
import type { ToolDefinition } from '../../../shared/tool.js';
import { resolveWorkspace, startExecutor } from '../../runtime/start-executor.js';
import { executorSettingsFrom } from '../agent-settings-from-flags.js';
import { COMMON, type CommandMain, common, type ExecutorFlags, parsed } from '../cli-flags.js';
import { note } from '../note.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = { ...COMMON, json: { type: 'boolean', default: false } } as const;

/** `skate tools [--json]`: the tools an executor under a policy offers. */
export const run: CommandMain = async (args) => {
  const { values, positionals } = parsed(() => parseArgs({ args, options: OPTIONS, allowPositionals: true }));
  if (values.help) return help();
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
  return toolsCommand({ ...common(values), json: values.json });
};

/** Prints the tools an executor under a policy offers. */
export async function toolsCommand(options: ExecutorFlags & { json: boolean }): Promise<number> {
  const { executor } = await startExecutor(
    executorSettingsFrom(options),
    await resolveWorkspace(options.workspace),
    note,
  );
  try {
    const [tools, health] = await Promise.all([executor.listTools(), executor.health()]);
    if (options.json) process.stdout.write(`${JSON.stringify(tools, null, 2)}\n`);
    else process.stdout.write(`${formatTools(tools)}\ngrep and glob search with ${health.search}\n`);
    return 0;
  } finally {
    await executor.shutdown();
  }
}

function formatTools(tools: ToolDefinition[]): string {
  const width = Math.max(...tools.map((tool) => tool.name.length));
  return tools
    .map((tool) => {
      const firstSentence = tool.description.split(/(?<=\.)\s/)[0];
      const about = tool.unavailable ? `unavailable: ${tool.unavailable}` : firstSentence;
      return `${tool.name.padEnd(width)}  ${tool.effect.padEnd(7)}  ${about}\n`;
    })
    .join('');
}
