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
    const tools = await executor.listTools();
    process.stdout.write(options.json ? `${JSON.stringify(tools, null, 2)}\n` : formatTools(tools));
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
      return `${tool.name.padEnd(width)}  ${tool.effect.padEnd(7)}  ${firstSentence}\n`;
    })
    .join('');
}
