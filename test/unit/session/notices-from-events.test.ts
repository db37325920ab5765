import { describe, expect, it } from 'vitest';
import { noticesFromEvents } from '../../../harness/session/notices-from-events.js';
import { historyEvents } from '../../../harness/tui/history-events.js';
import type { Message } from '../../../shared/conversation.js';
import type { SessionEvent, SessionPayload } from '../../../shared/session-format.js';

const user = (text: string): SessionPayload => ({
  type: 'user_message',
  message: { role: 'user', content: [{ type: 'text', text }] },
});
const reply = (text: string): SessionPayload => ({
  type: 'assistant_message',
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  model: 'm',
});
const denied = (host: string): SessionPayload => ({
  type: 'notice',
  event: { type: 'network_denied', agent: [], host, port: 443, reason: 'not_allowed', at: '' },
});

function path(payloads: SessionPayload[]): SessionEvent[] {
  return payloads.map((payload, i) => ({
    id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`,
    parentId: i === 0 ? null : `00000000-0000-7000-8000-${String(i - 1).padStart(12, '0')}`,
    timestamp: '2026-11-26T07:00:00.000Z',
    payload,
  }));
}

describe('notices of a session log', () => {
  it('are placed among the rebuilt messages, and a compaction moves those it summarised after its summary', () => {
    const decision: SessionPayload = {
      type: 'network_decision',
      host: 'b.test',
      port: 80,
      decision: 'never',
    };
    const placed = noticesFromEvents(
      path([user('one'), denied('a.test'), reply('two'), decision, user('three'), denied('c.test')]),
    );
    expect(placed.map((entry) => entry.position)).toEqual([1, 2, 3]);
    const compacted = noticesFromEvents(
      path([
        user('one'),
        denied('a.test'),
        reply('two'),
        { type: 'compaction', summary: 's', replacedMessages: 2 },
        user('three'),
        denied('c.test'),
      ]),
    );
    expect(compacted.map((entry) => entry.position)).toEqual([1, 2]);
  });

  it('come back as the events that showed them live, in their place', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'one' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
    ];
    const events = historyEvents(messages, undefined, [
      { position: 1, notice: denied('a.test') as Extract<SessionPayload, { type: 'notice' }> },
      { position: 2, notice: { type: 'network_decision', host: 'b.test', port: 80, decision: 'session' } },
    ]);
    expect(events.map((event) => event.type)).toEqual([
      'user_prompt',
      'network_denied',
      'text_done',
      'network_decision',
    ]);
  });
});
