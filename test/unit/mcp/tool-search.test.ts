import { describe, expect, it } from 'vitest';
import type { MetaTool } from '../../../harness/engine/engine-types.js';
import { LoadedTools } from '../../../harness/engine/loaded-tools.js';
import { budgetMcpTools, schemaBytes } from '../../../harness/mcp/budget-mcp-tools.js';
import { rankTools } from '../../../harness/mcp/rank-tools.js';
import type { Message } from '../../../shared/conversation.js';

const tool = (name: string, description: string): MetaTool => ({
  definition: { name, description, effect: 'read', inputSchema: { type: 'object', properties: {} } },
  run: async () => ({ output: name, isError: false }),
});

const tools = [
  tool('mcp__gh__create_issue', 'Creates an issue in a repository.'),
  tool('mcp__gh__list_issues', 'Lists the issues of a repository.'),
  tool('mcp__fs__read_file', 'Reads a file of the workspace.'),
  tool('mcp__fs__write_file', 'Writes a file; creates the issue tracker cache too.'),
];
const defs = tools.map((t) => t.definition);

describe('rankTools', () => {
  it('ranks words of the name over words of the description, and leaves out what matches nothing', () => {
    expect(rankTools('create issue', defs).map((t) => t.name)).toEqual([
      'mcp__gh__create_issue',
      'mcp__gh__list_issues',
      'mcp__fs__write_file',
    ]);
    expect(rankTools('readFile', defs)[0]?.name).toBe('mcp__fs__read_file');
    expect(rankTools('weather', defs)).toEqual([]);
  });

  it('puts a full name (with or without its prefix) first', () => {
    expect(rankTools('write_file', defs)[0]?.name).toBe('mcp__fs__write_file');
    expect(rankTools('mcp__gh__list_issues', defs)[0]?.name).toBe('mcp__gh__list_issues');
  });
});

describe('budgetMcpTools', () => {
  it('offers the tools as they are under the budget, and tool_search with the tools deferred past it', () => {
    const loaded = new LoadedTools();
    expect(budgetMcpTools(tools, schemaBytes(tools), loaded)).toHaveLength(4);
    const over = budgetMcpTools(tools, schemaBytes(tools) - 1, loaded);
    expect(over.map((t) => t.definition.name)[0]).toBe('tool_search');
    expect(over.slice(1).every((t) => t.deferred)).toBe(true);
  });

  it('tool_search loads the matches, named on a line read back from history on resume', async () => {
    const loaded = new LoadedTools();
    const [search] = budgetMcpTools(tools, 0, loaded);
    const result = await search?.run({ input: { query: 'issue', limit: 1 } } as never);
    expect(result?.isError).toBe(false);
    expect(loaded.list()).toEqual(['mcp__gh__create_issue']);
    const history: Message[] = [
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'tool_search', input: { query: 'issue' } },
          { type: 'tool_use', id: 'b', name: 'mcp__fs__read_file', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', callId: 'a', output: result?.output ?? '', isError: false },
          // Text from a tool other than tool_search loads nothing.
          { type: 'tool_result', callId: 'b', output: 'Loaded: mcp__gh__list_issues', isError: false },
        ],
      },
    ];
    // In the order a live run loads them: a call loads its tool as the calls start, a search as it ends.
    expect(LoadedTools.fromHistory(history).list()).toEqual(['mcp__fs__read_file', 'mcp__gh__create_issue']);
  });
});
