import { describe, expect, it } from 'vitest';
import type { ConversationLog } from '../../../harness/engine/engine-types.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import { createSessionWriter } from '../../../harness/session/session-writer.js';
import type { Message } from '../../../shared/conversation.js';
import { compactionSummaryMessage } from '../../../shared/conversation.js';
import { assistant, results, toolResult, toolUse, usage, userText } from '../../support/session-fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

/**
 * Drives a ConversationLog as the engine does over two prompts, one with two
 * parallel tool calls and a follow-up call; returns the engine's messages.
 */
function playTwoPrompts(log: ConversationLog): Message[] {
  const messages: Message[] = [];
  const user = (message: Message) => {
    messages.push(message);
    log.userMessage(message);
  };
  const reply = (message: Message, model = 'claude-sonnet-4-5') => {
    messages.push(message);
    log.assistantMessage(message, usage(1000, 100, 5000, 10), model);
  };
  const tools = (message: Message) => {
    messages.push(message);
    log.toolResults(message);
  };
  user(userText('fix the test'));
  reply(
    assistant(
      { type: 'text', text: 'Looking.' },
      toolUse('c1', 'read_file', { path: 'a.ts' }),
      toolUse('c2', 'grep', { pattern: 'bug' }),
    ),
  );
  tools(results(toolResult('c1', 'export const a = 1;'), toolResult('c2', 'no matches', true)));
  reply(assistant(toolUse('c3', 'edit_file', { path: 'a.ts' })));
  tools(results(toolResult('c3', 'edited')));
  reply(assistant({ type: 'text', text: 'Fixed.' }));
  user(userText('now run it'));
  reply(assistant({ type: 'text', text: 'Ran.' }));
  return messages;
}

describe('a session logged by the engine', () => {
  it('chains every event to the one before it and rebuilds the engine conversation', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter({
      workspace: dir.path,
      model: 'claude-sonnet-4-5',
      policy: 'execute',
    });
    const messages = playTwoPrompts(writer);
    await writer.close();

    const session = await loadSession(writer.file);
    const { events } = session;
    // One event per message, logged whole.
    expect(events.map((event) => event.payload.type)).toEqual([
      'user_message',
      'assistant_message',
      'user_message',
      'assistant_message',
      'user_message',
      'assistant_message',
      'user_message',
      'assistant_message',
    ]);
    expect(events.map((event) => event.parentId)).toEqual([
      null,
      ...events.slice(0, -1).map((event) => event.id),
    ]);
    expect(session.children.get(null)).toEqual([events[0]]);
    expect(session.children.get(events[1]!.id)).toEqual([events[2]]);
    expect(events.map((event) => ('message' in event.payload ? event.payload.message : undefined))).toEqual(
      messages,
    );

    expect(session.conversationAt()).toEqual(messages);
    // At an earlier event: the conversation up to and including it.
    expect(session.conversationAt(events[2]!.id)).toEqual(messages.slice(0, 3));
    expect(session.conversationAt(events[1]!.id)).toEqual(messages.slice(0, 2));
    expect(session.conversationAt(events[0]!.id.slice(0, 36))).toEqual(messages.slice(0, 1));
  });

  it('replaces compacted messages with the summary, as the engine does', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter({
      workspace: dir.path,
      model: 'claude-sonnet-4-5',
      policy: 'execute',
    });
    const before = playTwoPrompts(writer);
    // The engine keeps the last two messages and summarises the rest.
    writer.compaction('we fixed a.ts', before.length - 2);
    const afterCompaction = [compactionSummaryMessage('we fixed a.ts'), ...before.slice(-2)];
    const next = [userText('and commit'), assistant(toolUse('c4', 'shell', { command: 'git commit' }))];
    writer.userMessage(next[0]!);
    writer.assistantMessage(next[1]!, usage(1, 1), 'claude-sonnet-4-5');
    writer.toolResults(results(toolResult('c4', 'done')));
    // A second compaction replaces everything, the first summary included.
    writer.compaction('committed', 6);
    await writer.close();

    const session = await loadSession(writer.file);
    const compactions = session.events.filter((event) => event.payload.type === 'compaction');
    expect(session.conversationAt(compactions[0]!.id)).toEqual(afterCompaction);
    const beforeSecond = session.events.at(-2)!.id;
    expect(session.conversationAt(beforeSecond)).toEqual([
      ...afterCompaction,
      ...next,
      results(toolResult('c4', 'done')),
    ]);
    expect(session.conversationAt()).toEqual([compactionSummaryMessage('committed')]);
    expect(compactionSummaryMessage('x').content[0]).toEqual({
      type: 'text',
      text: 'This session continues from an earlier conversation, summarised to save context:\n\nx',
    });
  });

  it('keeps a tool results message whole, user text included', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter({ workspace: dir.path, model: 'm', policy: 'execute' });
    const messages = [
      userText('go'),
      assistant(toolUse('c1', 'read_file', {})),
      results(toolResult('c1', 'ok'), { type: 'text', text: 'the user interjected' }),
      assistant({ type: 'text', text: 'noted' }),
    ];
    writer.userMessage(messages[0]!);
    writer.assistantMessage(messages[1]!, usage(1, 1), 'm');
    writer.toolResults(messages[2]!);
    writer.assistantMessage(messages[3]!, usage(1, 1), 'm');
    await writer.close();
    expect((await loadSession(writer.file)).conversationAt()).toEqual(messages);
  });
});
