import chalk from 'chalk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conversationRows } from '../../../harness/tui/components/screen.js';
import { historyEvents } from '../../../harness/tui/history-events.js';
import { BlockLineCache } from '../../../harness/tui/render/line-cache.js';
import { SCROLLBACK_FOOTER, scrollbackText } from '../../../harness/tui/scrollback-text.js';
import { parseUiCommand } from '../../../harness/tui/ui-command.js';
import { createUiReducer } from '../../../harness/tui/ui-reducer.js';
import { initialUiState, type UiState } from '../../../harness/tui/ui-state.js';
import type { Message } from '../../../shared/conversation.js';

let level: typeof chalk.level;
beforeEach(() => {
  level = chalk.level;
  chalk.level = 0;
});
afterEach(() => {
  chalk.level = level;
});

function conversation(replyLines: number): { state: UiState; cache: BlockLineCache } {
  const cache = new BlockLineCache();
  const reduce = createUiReducer(cache.metrics(conversationRows));
  const text = Array.from({ length: replyLines }, (_, i) => `line ${i + 1}`).join('\n\n');
  const messages: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'go' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `${text}\n\nan OSC title \x1b]0;PWNED\x07 and a C1 \u009b2J` },
        { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a.ts' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', callId: 'c1', output: '1\tx', isError: false }] },
  ];
  const initial = initialUiState({ now: 0, columns: 80, rows: 10, model: 'claude-sonnet-4-5' });
  return { state: reduce(initial, { type: 'events', events: historyEvents(messages), now: 0 }).state, cache };
}

describe(":scrollback: the conversation in the terminal's own scrollback (#24)", () => {
  it('prints every line of every block, not just the screen, as the view draws them, then how to come back', () => {
    const { state, cache } = conversation(40);
    const text = scrollbackText(state, cache);
    for (let i = 1; i <= 40; i++) expect(text).toContain(`  line ${i}\r\n`);
    expect(text).toContain('▸ read_file(a.ts)');
    expect(text.trimEnd().endsWith(SCROLLBACK_FOOTER)).toBe(true);
    expect(SCROLLBACK_FOOTER.length).toBeLessThanOrEqual(80);
  });

  it('writes untrusted text inert: no escape or C1 control reaches the terminal', () => {
    const { state, cache } = conversation(1);
    const text = scrollbackText(state, cache);
    expect(text).not.toMatch(/[\x1b\x07\u009b]/);
    expect(text).toContain('␛]0;PWNED␇');
  });

  it('is a :command, and takes no argument', () => {
    expect(parseUiCommand('scrollback')).toEqual({ ok: true, command: { type: 'scrollback' } });
    expect(parseUiCommand('scrollback x').ok).toBe(false);
  });
});
