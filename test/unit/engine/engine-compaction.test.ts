import { describe, expect, it } from 'vitest';
import { compactionCut, renderTranscript } from '../../../harness/engine/compact-conversation.js';
import type { Message } from '../../../shared/conversation.js';
import type { ScriptedTurn } from '../../support/scripted-provider.js';
import { expectPairsIntact, fakeTool, recordingLog, runEngine } from './engine-harness.js';

const toolTurn = (id: string, inputTokens = 100): ScriptedTurn => ({
  steps: [
    { type: 'text', text: `step ${id}` },
    { type: 'tool_call', id, name: 'read_file', input: { path: `${id}.ts` } },
  ],
  usage: { inputTokens, outputTokens: 10 },
});

const summaryTurn: ScriptedTurn = {
  steps: [{ type: 'text', text: 'SUMMARY: read t1 and t2.' }],
  usage: { inputTokens: 300, outputTokens: 42 },
};

const text = (role: Message['role'], value: string): Message => ({
  role,
  content: [{ type: 'text', text: value }],
});

describe('Engine: compaction', () => {
  it('fires PreCompact (trigger auto) before it summarises', async () => {
    const fired: { event: string; input: Record<string, unknown> }[] = [];
    const { events } = await runEngine({
      turns: [
        toolTurn('t1'),
        toolTurn('t2'),
        toolTurn('t3'),
        toolTurn('t4', 500),
        toolTurn('t5', 850),
        summaryTurn,
        { steps: [{ type: 'text', text: 'All done.' }] },
      ],
      tools: [fakeTool('read_file', 'read', () => ({ output: 'x', isError: false }))],
      contextWindow: 1000,
      engine: { keepExchanges: 2 },
      hooks: {
        agent: [],
        has: (event) => event === 'PreCompact',
        async fire(event, input) {
          fired.push({ event, input });
          return { context: [] };
        },
      },
    });
    expect(fired).toEqual([{ event: 'PreCompact', input: { trigger: 'auto', custom_instructions: '' } }]);
    expect(events.ofType('compaction')).toHaveLength(1);
  });

  it('summarises the older messages once the prompt passes 80% of the window', async () => {
    const log = recordingLog();
    const { outcome, events, provider } = await runEngine({
      turns: [
        toolTurn('t1'),
        toolTurn('t2'),
        toolTurn('t3'),
        toolTurn('t4', 500),
        // 850 + 0 cache tokens of a 1000-token window: over the threshold.
        toolTurn('t5', 850),
        summaryTurn,
        { steps: [{ type: 'text', text: 'All done.' }] },
      ],
      tools: [
        fakeTool('read_file', 'read', (input) => ({
          output: `contents of ${JSON.stringify(input)}`,
          isError: false,
        })),
      ],
      contextWindow: 1000,
      engine: { keepExchanges: 2 },
      log,
    });
    expect(outcome).toMatchObject({ status: 'complete', finalMessage: 'All done.', turns: 6 });
    expect(events.ofType('compaction')).toEqual([
      { type: 'compaction', agent: [], summarizedMessages: 7, summaryTokens: 42 },
    ]);
    // The summary request: no tools, its own system prompt, the old part as one transcript message.
    const summaryRequest = provider.requests[5]!;
    expect(summaryRequest.tools).toEqual([]);
    expect(summaryRequest.system).toMatch(/summarise/i);
    expect(summaryRequest.messages).toHaveLength(1);
    const transcript = JSON.stringify(summaryRequest.messages[0]);
    expect(transcript).toContain('Do the thing.');
    expect(transcript).toContain('called read_file');
    expect(transcript).not.toContain('t4.ts');

    const next = provider.requests[6]!.messages;
    expect(next[0]?.role).toBe('user');
    expect(JSON.stringify(next[0])).toContain('SUMMARY: read t1 and t2.');
    // The last two exchanges stay verbatim, each tool_use with its tool_result.
    expect(next.slice(1).map((message) => message.role)).toEqual(['assistant', 'user', 'assistant', 'user']);
    expect(next[1]?.content[1]).toMatchObject({ type: 'tool_use', id: 't4' });
    expect(next[2]?.content[0]).toMatchObject({ type: 'tool_result', callId: 't4' });
    expectPairsIntact(next);
    expectPairsIntact(outcome.messages);
    expect(outcome.messages).toHaveLength(6);
    // The summary's tokens count toward the run's total.
    expect(outcome.usage.outputTokens).toBe(5 * 10 + 42);
    // The log gets the summary, how much it replaced, and what it cost on which model.
    expect(log.entries.filter((entry) => entry.kind === 'compaction').map((entry) => entry.args)).toEqual([
      ['SUMMARY: read t1 and t2.', 7, expect.objectContaining({ outputTokens: 42 }), expect.any(String)],
    ]);
  });

  it('compacts and retries the turn once on context_overflow', async () => {
    const history = [
      text('user', 'first task'),
      text('assistant', 'first answer'),
      text('user', 'second task'),
      text('assistant', 'second answer'),
    ];
    const { outcome, events, provider } = await runEngine({
      turns: [
        { steps: [{ type: 'error', kind: 'context_overflow', message: 'prompt is too long' }] },
        summaryTurn,
        { steps: [{ type: 'text', text: 'Fits now.' }] },
      ],
      request: { history },
      engine: { keepExchanges: 1 },
    });
    expect(outcome).toMatchObject({ status: 'complete', finalMessage: 'Fits now.', turns: 1 });
    expect(events.ofType('compaction')).toHaveLength(1);
    expect(events.ofType('turn_start')).toHaveLength(1);
    expect(provider.requests[2]?.messages).toEqual([
      expect.objectContaining({ role: 'user' }),
      text('assistant', 'second answer'),
      text('user', 'Do the thing.'),
    ]);
  });

  it('fails with context_overflow when the retry still does not fit', async () => {
    const { outcome, events } = await runEngine({
      turns: [
        { steps: [{ type: 'error', kind: 'context_overflow', message: 'prompt is too long' }] },
        summaryTurn,
        { steps: [{ type: 'error', kind: 'context_overflow', message: 'prompt is still too long' }] },
      ],
      request: { history: [text('user', 'a'), text('assistant', 'b')] },
    });
    expect(outcome).toMatchObject({ status: 'error', error: 'prompt is still too long' });
    expect(events.first('error')?.code).toBe('context_overflow');
    expect(events.events.at(-1)).toMatchObject({ type: 'turn_end', reason: 'error' });
  });

  it('cuts only before an assistant message, keeping fewer exchanges when they are large', () => {
    const big = 'x'.repeat(3_000);
    const messages: Message[] = [
      text('user', 'task'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'a', output: 'small', isError: false }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'b', output: big, isError: false }] },
    ];
    expect(compactionCut(messages, 2, 100_000)).toBe(1);
    // 3,000 characters do not fit half of a 1,000-token window: keep one exchange only.
    expect(compactionCut(messages, 2, 1_000)).toBe(3);
    expect(compactionCut([text('user', 'only')], 2, 1_000)).toBeUndefined();
  });

  it('clips long blocks and long transcripts in the middle', () => {
    const long = `${'a'.repeat(5_000)}END`;
    const rendered = renderTranscript([text('user', long)], 1_000_000);
    expect(rendered.length).toBeLessThan(4_200);
    expect(rendered).toContain('END');
    const many = Array.from({ length: 50 }, (_, i) =>
      text(i % 2 ? 'assistant' : 'user', `message ${i} ${'y'.repeat(200)}`),
    );
    const clipped = renderTranscript(many, 2_000);
    expect(clipped).toContain('message 0');
    expect(clipped).toContain('message 49');
    expect(clipped).toContain('characters left out');
  });
});
