import * as z from 'zod';
import type { ToolDefinition } from '../shared/tool.js';
import type { AnyTool } from './define-tool.js';

/** The tools one executor offers. Each executor builds its own; there is no global registry. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private definitionsCache: ToolDefinition[] | undefined;

  constructor(tools: readonly AnyTool[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: AnyTool): void {
    if (this.tools.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
    this.tools.set(tool.name, tool);
    this.definitionsCache = undefined;
  }

  get(name: string): AnyTool | undefined {
    return this.tools.get(name);
  }

  get size(): number {
    return this.tools.size;
  }

  /** Lets every tool release what it holds; failures are ignored, the process is going away. */
  async dispose(): Promise<void> {
    await Promise.allSettled([...this.tools.values()].map(async (tool) => tool.dispose?.()));
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Definitions with JSON Schema inputs, generated once per registry. */
  definitions(): ToolDefinition[] {
    this.definitionsCache ??= [...this.tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      effect: tool.effect,
      streamsOutput: tool.streamsOutput ?? false,
      ...(tool.unavailable && { unavailable: tool.unavailable }),
      inputSchema: inputJsonSchema(tool.input),
    }));
    return this.definitionsCache;
  }
}

function inputJsonSchema(input: z.ZodObject): Record<string, unknown> {
  // `io: 'input'` keeps fields with defaults optional, which is what a caller may omit.
  const { $schema: _ignored, ...schema } = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' });
  return schema;
}
