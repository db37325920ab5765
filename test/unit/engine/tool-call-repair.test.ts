import { describe, expect, it } from 'vitest';
import { garbledCallResult, looksLikeTextToolCall } from '../../../harness/engine/tool-call-repair.js';
import { toolUseBlock } from '../../../harness/provider/message-accumulator.js';

const TOOLS = new Set(['read_file', 'shell']);
const text = (value: string) => ({
  role: 'assistant' as const,
  content: [{ type: 'text' as const, text: value }],
});

describe('tool-call repair', () => {
  it('names the parser error and what the model wrote', () => {
    const result = garbledCallResult(toolUseBlock('id', 'shell', '{"command": "ls'));
    expect(result.isError).toBe(true);
    expect(result.code).toBe('invalid_input');
    expect(result.output).toMatch(/not a valid JSON object \(.+\)/);
    expect(result.output).toContain('{"command": "ls');
    expect(result.output).toContain('Call shell again');
  });

  it('refuses JSON that is not an object', () => {
    expect(toolUseBlock('id', 'shell', '["ls"]').inputError).toContain('not an object');
  });

  it('tells calls written as text from prose', () => {
    expect(looksLikeTextToolCall(text('{"name": "read_file", "arguments": {"path": "a"}}'), TOOLS)).toBe(
      true,
    );
    expect(looksLikeTextToolCall(text('<tool_call>{"name":"shell"}</tool_call>'), TOOLS)).toBe(true);
    expect(looksLikeTextToolCall(text('I used read_file and shell to check; all good.'), TOOLS)).toBe(false);
    expect(looksLikeTextToolCall(text('{"name": "unknown_tool", "arguments": {}}'), TOOLS)).toBe(false);
  });
});
