import type { ContentBlock, Message } from '../../shared/conversation.js';
import type { TokenUsage } from '../../shared/engine-events.js';

/** Conversation pieces for session tests, shaped as the engine produces them. */

export function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): TokenUsage {
  return {
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
}

export function userText(text: string): Message & { role: 'user' } {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function assistant(...content: ContentBlock[]): Message & { role: 'assistant' } {
  return { role: 'assistant', content };
}

export function toolUse(id: string, name: string, input: unknown): ContentBlock {
  return { type: 'tool_use', id, name, input };
}

export function toolResult(callId: string, content: string, isError = false): ContentBlock {
  return { type: 'tool_result', callId, output: content, isError };
}

export function results(...content: ContentBlock[]): Message & { role: 'user' } {
  return { role: 'user', content };
}

/** The cycle the crash child repeats and the crash test expects back: prompt, call, result. */
export function crashCycle(index: number): {
  prompt: Message & { role: 'user' };
  reply: Message & { role: 'assistant' };
  results: Message;
} {
  // Sizes vary up to ~200 KB so a kill can land inside a large write as well as between small ones.
  const size = (index * 7_919) % 200_000;
  return {
    prompt: userText(`prompt ${index}`),
    reply: assistant(
      { type: 'text', text: `answer ${index}` },
      toolUse(`call-${index}`, 'read_file', { index }),
    ),
    results: results(toolResult(`call-${index}`, `output ${index} `.padEnd(size, 'x'))),
  };
}
