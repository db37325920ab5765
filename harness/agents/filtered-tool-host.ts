import type { ToolDefinition } from '../../shared/tool.js';
import type { ToolHost } from '../engine/engine-types.js';

/**
 * A tool host offering only the named tools of another. Calls to the others
 * are refused here, not passed on: the model is shown the filtered list, but
 * what it may call must match what it was shown.
 */
export function filterToolHost(host: ToolHost, allowed: ReadonlySet<string>): ToolHost {
  return {
    async listTools(): Promise<ToolDefinition[]> {
      return (await host.listTools()).filter((tool) => allowed.has(tool.name));
    },
    async callTool(name, input, options) {
      if (!allowed.has(name)) {
        return {
          output: `${name} is not one of your tools; use ${[...allowed].join(', ') || 'complete_task'}.`,
          isError: true,
          code: 'unknown_tool',
        };
      }
      return host.callTool(name, input, options);
    },
  };
}
