import type { ToolDefinition } from '../../../shared/tool.js';
import { type ExecutorOptions, openExecutor } from '../open-executor.js';

/** `skate tools`: prints the tools an executor under a policy offers. */
export async function toolsCommand(options: ExecutorOptions & { json: boolean }): Promise<number> {
  const executor = await openExecutor(options);
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
      const about = tool.unavailable ? `unavailable: ${tool.unavailable}` : firstSentence;
      return `${tool.name.padEnd(width)}  ${tool.effect.padEnd(7)}  ${about}\n`;
    })
    .join('');
}
