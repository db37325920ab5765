import type { ToolDefinition } from '../shared/tool.js';
import type { AnyTool } from './define-tool.js';

/**
 * A tool listed before it is loaded: its definition was generated at build time, and its module
 * (with zod and whatever else it imports) loads on its first call. This keeps an executor's
 * start and its memory down to what listing tools needs.
 */
export interface LazyTool {
  readonly definition: ToolDefinition;
  load(): Promise<AnyTool>;
}

interface Entry {
  readonly lazy?: LazyTool;
  tool?: AnyTool;
  loading?: Promise<AnyTool>;
}

/** The tools one executor offers. Each executor builds its own; there is no global registry. */
export class ToolRegistry {
  private readonly tools = new Map<string, Entry>();
  private definitionsCache: Promise<ToolDefinition[]> | undefined;

  constructor(tools: readonly (AnyTool | LazyTool)[] = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: AnyTool | LazyTool): void {
    const name = 'load' in tool ? tool.definition.name : tool.name;
    if (this.tools.has(name)) throw new Error(`tool "${name}" is registered twice`);
    this.tools.set(name, 'load' in tool ? { lazy: tool } : { tool });
    this.definitionsCache = undefined;
  }

  /** Removes a tool (an MCP server's, when its list changed); a call already running keeps its tool. */
  unregister(name: string): void {
    if (this.tools.delete(name)) this.definitionsCache = undefined;
  }

  /** The tool, loading its module on first use; undefined when no such tool is registered. */
  async load(name: string): Promise<AnyTool | undefined> {
    const entry = this.tools.get(name);
    if (!entry) return undefined;
    if (entry.tool) return entry.tool;
    entry.loading ??= entry.lazy!.load().then(
      (tool) => (entry.tool = tool),
      (error: unknown) => {
        // The next call tries again rather than inheriting this failure.
        entry.loading = undefined;
        throw error;
      },
    );
    return entry.loading;
  }

  get size(): number {
    return this.tools.size;
  }

  /** Lets every loaded tool release what it holds; failures are ignored, the process is going away. */
  async dispose(): Promise<void> {
    await Promise.allSettled([...this.tools.values()].map(async ({ tool }) => tool?.dispose?.()));
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Definitions with JSON Schema inputs, made once per registry. */
  definitions(): Promise<ToolDefinition[]> {
    this.definitionsCache ??= this.makeDefinitions();
    return this.definitionsCache;
  }

  private async makeDefinitions(): Promise<ToolDefinition[]> {
    const entries = [...this.tools.values()];
    // Only tools handed over loaded need zod's JSON Schema generation, so only then is it imported.
    const generate = entries.some((entry) => !entry.lazy)
      ? (await import('./tool-definition.js')).toolDefinition
      : undefined;
    return entries.map((entry) => entry.lazy?.definition ?? generate!(entry.tool!));
  }
}
