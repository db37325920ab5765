import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../harness/provider/model-provider.js';
import { toAnthropicParams } from '../../../harness/provider/to-anthropic-params.js';

const base: ModelRequest = {
  model: 'claude-sonnet-5-5',
  system: '',
  messages: [],
  tools: [],
  maxTokens: 100,
};

describe('toAnthropicParams', () => {
  it('leaves out an empty system prompt and no tools, and adds no breakpoint for them', () => {
    const params = toAnthropicParams({
      ...base,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    expect(params.system).toBeUndefined();
    expect(params.tools).toBeUndefined();
    expect(params.thinking).toBeUndefined();
    expect(params.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('never marks a thinking block, and does not change the request it was given', () => {
    const request: ModelRequest = {
      ...base,
      thinkingBudgetTokens: 50,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Sure.' },
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: '  ' },
          ],
        },
      ],
    };
    const before = structuredClone(request);
    const params = toAnthropicParams(request);
    expect(params.thinking).toEqual({ type: 'enabled', budget_tokens: 50 });
    expect(params.messages[1]?.content).toEqual([
      { type: 'text', text: 'Sure.', cache_control: { type: 'ephemeral' } },
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
    ]);
    expect(request).toEqual(before);
  });

  it('sends a non-object tool input as {}', () => {
    const params = toAnthropicParams({
      ...base,
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: 'oops' }] }],
    });
    expect(params.messages[0]?.content).toEqual([
      { type: 'tool_use', id: 't', name: 'x', input: {}, cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('splits a sub-agent system prompt at its dispatch prefix: four breakpoints at most, the text unchanged', () => {
    const prefix = 'SHARED PREFIX: base prompt, instructions, contract';
    const system = `${prefix}\n\n# You are a sub-agent\n# Your task\nfix it`;
    const params = toAnthropicParams({
      ...base,
      system,
      systemCachePrefix: prefix.length,
      tools: [{ name: 'read_file', description: 'reads', inputSchema: {} }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
    });
    expect(params.system).toEqual([
      { type: 'text', text: prefix, cache_control: { type: 'ephemeral' } },
      { type: 'text', text: system.slice(prefix.length), cache_control: { type: 'ephemeral' } },
    ]);
    const blocks = params.system as { text: string }[];
    expect(blocks.map((block) => block.text).join('')).toBe(system);
    expect(JSON.stringify(params).match(/"cache_control"/g)).toHaveLength(4);
    // No split where there is nothing after the prefix, or the offset is out of range.
    for (const at of [0, system.length, system.length + 5]) {
      expect(toAnthropicParams({ ...base, system, systemCachePrefix: at }).system).toEqual([
        { type: 'text', text: system, cache_control: { type: 'ephemeral' } },
      ]);
    }
  });
});
