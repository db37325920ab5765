import type { Message } from '../../shared/conversation.js';

/** The line of a `tool_search` result that names the tools it loaded (read back on resume). */
export const LOADED_LINE_PREFIX = 'Loaded: ';

/**
 * The deferred tools (MCP tools past the schema budget) whose schemas an agent has chosen to load,
 * in the order they were loaded: the engine appends them after the other tools, so the request's
 * prefix (and its prompt cache) stays as it was. One per agent session; loaded stays loaded.
 */
export class LoadedTools {
  private readonly names: string[] = [];

  /** Seeded from a resumed conversation: the tools its `tool_search` calls loaded and the deferred tools it called. */
  static fromHistory(messages: readonly Message[], searchTool = 'tool_search'): LoadedTools {
    const loaded = new LoadedTools();
    const searches = new Set<string>();
    for (const message of messages) {
      for (const block of message.content) {
        if (block.type === 'tool_use') {
          if (block.name === searchTool) searches.add(block.id);
          else if (block.name.startsWith('mcp__')) loaded.load([block.name]);
        } else if (block.type === 'tool_result' && searches.has(block.callId)) {
          for (const line of block.output.split('\n')) {
            if (!line.startsWith(LOADED_LINE_PREFIX)) continue;
            loaded.load(line.slice(LOADED_LINE_PREFIX.length).split(', ').filter(Boolean));
          }
        }
      }
    }
    return loaded;
  }

  /** Adds the names not loaded yet, at the end; returns those that were new. */
  load(names: readonly string[]): string[] {
    const added = names.filter((name) => !this.names.includes(name));
    this.names.push(...new Set(added));
    return [...new Set(added)];
  }

  has(name: string): boolean {
    return this.names.includes(name);
  }

  list(): readonly string[] {
    return this.names;
  }
}
