import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { createChatAccumulator } from '../../../harness/provider/chat-accumulator.js';

function chunk(delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk {
  return {
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish as never, logprobs: null }],
  };
}

describe('createChatAccumulator', () => {
  it('keeps interleaved parallel calls apart by index, reasoning and text as their own blocks', () => {
    const acc = createChatAccumulator();
    const events = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'think' }),
      chunk({ content: 'Hi' }),
      chunk({
        tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'read_file', arguments: '' } }],
      }),
      chunk({
        tool_calls: [
          { index: 1, id: 'b', type: 'function', function: { name: 'shell', arguments: '{"com' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"x"}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'mand":"ls"}' } }] }),
      chunk({}, 'tool_calls'),
    ].flatMap((each) => acc.push(each));
    acc.push({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'm',
      choices: [],
      usage: {
        prompt_tokens: 100,
        completion_tokens: 7,
        total_tokens: 107,
        prompt_tokens_details: { cached_tokens: 60 },
      },
    });
    const done = acc.finish();
    expect(done?.stopReason).toBe('tool_use');
    expect(done?.message.content).toEqual([
      { type: 'thinking', thinking: 'think', signature: '' },
      { type: 'text', text: 'Hi' },
      { type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'x' } },
      { type: 'tool_use', id: 'b', name: 'shell', input: { command: 'ls' } },
    ]);
    expect(done?.usage).toEqual({
      inputTokens: 40,
      outputTokens: 7,
      cacheReadTokens: 60,
      cacheWriteTokens: 0,
    });
    expect(events.filter((event) => event.type === 'tool_input_delta')).toHaveLength(3);
    expect(events.filter((event) => event.type === 'block_done')).toHaveLength(4);
  });

  it('marks garbled arguments with the parser error, and a stream without finish_reason as unfinished', () => {
    const acc = createChatAccumulator();
    acc.push(
      chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'shell', arguments: '{"command": ' } }] }),
    );
    expect(acc.finish()).toBeUndefined();
    acc.push(chunk({}, 'length'));
    const block = acc.finish()?.message.content[0] as {
      inputError?: string;
      rawInput?: string;
      input: unknown;
    };
    expect(block.input).toEqual({});
    expect(block.rawInput).toBe('{"command": ');
    expect(block.inputError).toBeTruthy();
  });

  it('takes a tool call finished as "stop" (Ollama) as a tool_use stop', () => {
    const acc = createChatAccumulator();
    acc.push(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'glob', arguments: '{}' } }] }));
    acc.push(chunk({}, 'stop'));
    expect(acc.finish()?.stopReason).toBe('tool_use');
  });
});
