import type { ToolDefinition } from '../../../shared/tool.js';
import { type ExecutorOptions, openExecutor } from '../open-executor.js';

/** `skate tools`: prints the tools an executor under a policy offers. */
export async function toolsCommand(options: ExecutorOptions & { json: boolean }): Promise<number> {
  const executor = await openExecutor(options);
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
      return `${tool.name.padEnd(width)}  ${tool.effect.padEnd(7)}  ${firstSentence}\n`;
    })
    .join('');
}
