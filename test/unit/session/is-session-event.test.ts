import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSessionEvent } from '../../../harness/session/is-session-event.js';
import { SessionEvent } from '../../../shared/session-format.js';

const ID = '01a2030c-8333-77ca-a5c9-372725a8173f';
const PARENT = '01a2030c-8334-75f0-8ee3-9b5250d2ecb6';

/** A valid event of every payload type and content block. */
const VALID: unknown[] = [
  { type: 'user_message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } },
  {
    type: 'user_message',
    appendToToolResults: true,
    message: { role: 'user', content: [{ type: 'image', mediaType: 'image/gif', data: 'R0lG' }] },
  },
  {
    type: 'assistant_message',
    model: 'm',
    usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 0 },
    message: {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 't', signature: 's' },
        { type: 'redacted_thinking', data: 'd' },
        { type: 'tool_use', id: 'c', name: 'n', input: { a: [1] } },
        { type: 'tool_result', callId: 'c', output: 'x', isError: false },
      ],
    },
  },
  {
    type: 'user_message',
    message: {
      role: 'user',
      content: [
        { type: 'tool_result', callId: 'c', output: 'o', isError: true },
        { type: 'text', text: 'and this' },
      ],
    },
  },
  { type: 'compaction', summary: 's', replacedMessages: 0 },
  { type: 'model_change', from: 'a', to: 'b' },
  { type: 'network_decision', host: 'registry.npmjs.org', port: 443, decision: 'session' },
  { type: 'title', title: 'Fix the flaky test' },
  {
    type: 'title',
    title: 't',
    model: 'm',
    usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
  },
  { type: 'subagent_link', childSessionId: ID, callId: 'c', task: 't' },
].map((payload, i) => ({
  id: ID,
  parentId: i % 2 ? PARENT : null,
  timestamp: '2025-11-22T10:00:00.000Z',
  payload,
}));

/** Replaces the value at a random path inside `value` (objects and arrays) with `replacement`. */
function mutate(value: unknown, choices: number[], replacement: unknown): unknown {
  if (typeof value !== 'object' || value === null || choices.length === 0) return replacement;
  const [choice, ...rest] = choices;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  if (keys.length === 0) return replacement;
  const key = keys[choice! % keys.length]!;
  (copy as Record<string, unknown>)[key] = mutate((copy as Record<string, unknown>)[key], rest, replacement);
  return copy;
}

describe('isSessionEvent', () => {
  it('accepts every valid event zod accepts', () => {
    for (const event of VALID) {
      expect(SessionEvent.safeParse(event).success).toBe(true);
      expect(isSessionEvent(event)).toBe(true);
    }
  });

  it('never accepts what zod refuses', () => {
    const replacement = fc.oneof(
      fc.constantFrom(
        undefined,
        null,
        -1,
        1.5,
        Number.NaN,
        '',
        'user',
        'assistant',
        'text',
        'tool_result',
        '2025-02-30T10:00:00.000Z',
        '2023-02-29T10:00:00.000Z',
        '2024-02-29T10:00:00.000Z',
        '2024-04-31T10:00:00.000Z',
        '2025-11-22T10:00:00Z',
        ID.toUpperCase(),
        [],
        {},
      ),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...VALID),
        fc.array(fc.nat(), { maxLength: 6 }),
        replacement,
        (event, choices, value) => {
          const mutated = mutate(event, choices, value);
          if (isSessionEvent(mutated)) expect(SessionEvent.safeParse(mutated).success).toBe(true);
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
