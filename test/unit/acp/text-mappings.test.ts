import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../executor/fs/text-diff.js';
import { diffHunks } from '../../../harness/acp/diff-hunks.js';
import { historyUpdates } from '../../../harness/acp/history-updates.js';
import { planEntries } from '../../../harness/acp/plan-entries.js';
import { promptInput } from '../../../harness/acp/prompt-input.js';
import { stopReasonFor } from '../../../harness/acp/stop-reason.js';

describe('diffHunks', () => {
  it('gives each hunk of a unified diff as its old and new text', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const after = before.replace('line 2\n', 'line two\n').replace('line 18', 'line eighteen');
    const hunks = diffHunks(unifiedDiff('f.txt', before, after).diff);
    expect(hunks).toHaveLength(2);
    expect(hunks[0]).toEqual({
      oldText: 'line 1\nline 2\nline 3\nline 4\nline 5',
      newText: 'line 1\nline two\nline 3\nline 4\nline 5',
    });
    expect(hunks[1]?.newText).toContain('line eighteen');
    expect(hunks[1]?.oldText).not.toContain('eighteen');
    expect(diffHunks('')).toEqual([]);
  });
});

describe('planEntries', () => {
  it('takes the top-level list items of a plan, checked ones completed', () => {
    const plan =
      '# Plan\n\n1. Add the table.\n   - nested detail\n2. [x] Write the migration\n- [ ] Test it\n\n```\n- not a step\n```\n';
    expect(planEntries(plan)).toEqual([
      { content: 'Add the table.', priority: 'medium', status: 'pending' },
      { content: 'Write the migration', priority: 'medium', status: 'completed' },
      { content: 'Test it', priority: 'medium', status: 'pending' },
    ]);
  });

  it('falls back to section headings, and gives nothing for an empty plan', () => {
    expect(planEntries('# Plan\n## Schema\ntext\n## Tests\n').map((entry) => entry.content)).toEqual([
      'Schema',
      'Tests',
    ]);
    expect(planEntries('')).toEqual([]);
  });
});

describe('stopReasonFor', () => {
  it('maps how a run ended to the ACP stop reason', () => {
    expect(stopReasonFor({ status: 'complete' })).toBe('end_turn');
    expect(stopReasonFor({ status: 'complete', modelStopReason: 'refusal' })).toBe('refusal');
    expect(stopReasonFor({ status: 'complete', modelStopReason: 'max_tokens' })).toBe('max_tokens');
    expect(stopReasonFor({ status: 'loop_cap' })).toBe('max_turn_requests');
    expect(stopReasonFor({ status: 'cancelled' })).toBe('cancelled');
    expect(stopReasonFor({ status: 'error', error: 'boom' })).toBeUndefined();
  });
});

describe('promptInput', () => {
  it('keeps text and images, inlines text resources and names what it cannot send', () => {
    const input = promptInput([
      { type: 'text', text: 'Fix this:' },
      { type: 'resource', resource: { uri: 'file:///w/a.ts', text: 'let x = 1' } },
      { type: 'resource_link', name: 'b.ts', uri: 'file:///w/b.ts' },
      { type: 'image', mimeType: 'image/png', data: 'iVBOR' },
      { type: 'image', mimeType: 'image/tiff', data: 'xx' },
      { type: 'audio', mimeType: 'audio/wav', data: 'xx' },
    ]);
    expect(input.images).toEqual([{ mediaType: 'image/png', data: 'iVBOR' }]);
    expect(input.text).toContain('Fix this:');
    expect(input.text).toContain('file:///w/a.ts:\n```\nlet x = 1\n```');
    expect(input.text).toContain('[b.ts](file:///w/b.ts)');
    expect(input.text).toContain('image/tiff');
    expect(input.text).toContain('cannot send audio');
  });
});

describe('historyUpdates', () => {
  it('replays a stored conversation: user and agent chunks, each tool call once with its outcome', () => {
    const updates = historyUpdates(
      [
        { role: 'user', content: [{ type: 'text', text: 'Read a' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'look', signature: 's' },
            { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } },
            { type: 'tool_use', id: 't2', name: 'shell', input: { command: 'false' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 't1', output: 'A', isError: false },
            { type: 'tool_result', callId: 't2', output: 'exit 1', isError: true },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
      ],
      '/w',
    );
    expect(updates.map((update) => update.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_thought_chunk',
      'tool_call',
      'tool_call',
      'agent_message_chunk',
    ]);
    expect(updates[2]).toMatchObject({
      toolCallId: 't1',
      kind: 'read',
      status: 'completed',
      locations: [{ path: '/w/a' }],
    });
    expect(updates[3]).toMatchObject({ toolCallId: 't2', kind: 'execute', status: 'failed' });
  });
});
