import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it, vi } from 'vitest';
import { createMessageAccumulator } from '../../../harness/provider/message-accumulator.js';

const usage = (fields: Partial<Anthropic.Usage>): Anthropic.Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: null,
  cache_read_input_tokens: null,
  cache_creation: null,
  inference_geo: null,
  output_tokens_details: null,
  server_tool_use: null,
  service_tier: null,
  speed: null,
  ...fields,
});

const messageStart = (fields: Partial<Anthropic.Usage>): Anthropic.RawMessageStreamEvent => ({
  type: 'message_start',
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-5-5',
    content: [],
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: null,
    stop_sequence: null,
    usage: usage(fields),
  },
});

const messageDelta = (
  stop_reason: string,
  fields: Partial<Anthropic.MessageDeltaUsage>,
): Anthropic.RawMessageStreamEvent => ({
  type: 'message_delta',
  delta: {
    stop_reason: stop_reason as Anthropic.StopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
  },
  usage: {
    output_tokens: 0,
    input_tokens: null,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    output_tokens_details: null,
    server_tool_use: null,
    ...fields,
  },
});

const toolStart = (index: number, id: string): Anthropic.RawMessageStreamEvent =>
  ({
    type: 'content_block_start',
    index,
    content_block: { type: 'tool_use', id, name: 'shell', input: {}, caller: { type: 'direct' } },
  }) as Anthropic.RawMessageStreamEvent;

const jsonDelta = (index: number, partial_json: string): Anthropic.RawMessageStreamEvent => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
});

describe('createMessageAccumulator', () => {
  it('takes cumulative counts from message_delta over message_start', () => {
    const acc = createMessageAccumulator();
    acc.push(messageStart({ input_tokens: 5, output_tokens: 1, cache_read_input_tokens: 7 }));
    acc.push(
      messageDelta('end_turn', { output_tokens: 40, input_tokens: 6, cache_creation_input_tokens: 3 }),
    );
    acc.push({ type: 'message_stop' });
    expect(acc.finish()?.usage).toEqual({
      inputTokens: 6,
      outputTokens: 40,
      cacheReadTokens: 7,
      cacheWriteTokens: 3,
    });
  });

  it('keeps an unparsable tool input as {} with the raw text beside it', () => {
    const debug: string[] = [];
    const acc = createMessageAccumulator((line) => debug.push(line));
    acc.push(messageStart({}));
    acc.push(toolStart(0, 'toolu_cut'));
    acc.push(jsonDelta(0, '{"command": "ls -'));
    acc.push({ type: 'content_block_stop', index: 0 });
    acc.push(messageDelta('max_tokens', { output_tokens: 9 }));
    acc.push({ type: 'message_stop' });
    const done = acc.finish();
    expect(done?.stopReason).toBe('max_tokens');
    expect(done?.message.content).toEqual([
      {
        type: 'tool_use',
        id: 'toolu_cut',
        name: 'shell',
        input: {},
        rawInput: '{"command": "ls -',
        inputError: expect.stringMatching(/JSON|Unterminated/),
      },
    ]);
    expect(debug.join('\n')).toContain('toolu_cut');
  });

  it('reads a tool call without input deltas as an empty input', () => {
    const acc = createMessageAccumulator();
    acc.push(messageStart({}));
    expect(acc.producedContent).toBe(false);
    expect(acc.push(toolStart(0, 'toolu_empty'))).toEqual([
      { type: 'tool_use_start', index: 0, id: 'toolu_empty', name: 'shell' },
    ]);
    expect(acc.producedContent).toBe(true);
    acc.push({ type: 'content_block_stop', index: 0 });
    acc.push(messageDelta('tool_use', {}));
    acc.push({ type: 'message_stop' });
    expect(acc.finish()?.message.content).toEqual([
      { type: 'tool_use', id: 'toolu_empty', name: 'shell', input: {} },
    ]);
  });

  it('maps stop reasons Skate does not name', () => {
    for (const [reason, expected] of [
      ['model_context_window_exceeded', 'max_tokens'],
      ['refusal', 'refusal'],
      ['some_future_reason', 'end_turn'],
    ] as const) {
      const acc = createMessageAccumulator();
      acc.push(messageStart({}));
      acc.push(messageDelta(reason, {}));
      acc.push({ type: 'message_stop' });
      expect(acc.finish()?.stopReason, reason).toBe(expected);
    }
  });

  it('has no message until message_stop', () => {
    const acc = createMessageAccumulator();
    acc.push(messageStart({}));
    acc.push(messageDelta('end_turn', {}));
    expect(acc.finish()).toBeUndefined();
  });

  it('hands each block over finished, once: the tool input parsed when its block stops', () => {
    const acc = createMessageAccumulator();
    acc.push(messageStart({}));
    acc.push({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '', citations: null },
    });
    acc.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Reading ' } });
    acc.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'it.' } });
    const textDone = acc.push({ type: 'content_block_stop', index: 0 });
    expect(textDone).toEqual([
      { type: 'block_done', index: 0, block: { type: 'text', text: 'Reading it.' } },
    ]);
    acc.push(toolStart(1, 'toolu_read'));
    for (const piece of ['{"pa', 'th": "src/', 'a.ts", "lines": [1, ', '20]}']) acc.push(jsonDelta(1, piece));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const toolDone = acc.push({ type: 'content_block_stop', index: 1 });
      acc.push(messageDelta('tool_use', { output_tokens: 12 }));
      acc.push({ type: 'message_stop' });
      const done = acc.finish();
      expect(parse).toHaveBeenCalledTimes(1);
      expect(toolDone).toEqual([
        {
          type: 'block_done',
          index: 1,
          block: {
            type: 'tool_use',
            id: 'toolu_read',
            name: 'shell',
            input: { path: 'src/a.ts', lines: [1, 20] },
          },
        },
      ]);
      // The final message holds the very blocks handed over, not copies built again.
      const [first, second] = done!.message.content;
      expect(first).toBe((textDone[0] as { block: unknown }).block);
      expect(second).toBe((toolDone[0] as { block: unknown }).block);
    } finally {
      parse.mockRestore();
    }
  });

  it('reports what streamed so far: finished blocks, and the text of a block still open', () => {
    const acc = createMessageAccumulator();
    acc.push(messageStart({}));
    acc.push(toolStart(0, 'toolu_ls'));
    acc.push(jsonDelta(0, '{}'));
    acc.push({ type: 'content_block_stop', index: 0 });
    acc.push({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'text', text: '', citations: null },
    });
    acc.push({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Half a sen' } });
    acc.push(toolStart(2, 'toolu_open'));
    expect(acc.partial()).toEqual([
      { type: 'tool_use', id: 'toolu_ls', name: 'shell', input: {} },
      { type: 'text', text: 'Half a sen' },
    ]);
  });
});
