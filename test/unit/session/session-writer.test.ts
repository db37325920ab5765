import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionError } from '../../../harness/session/session-error.js';
import { loadSession } from '../../../harness/session/session-reader.js';
import { sessionToolCalls } from '../../../harness/session/session-tool-calls.js';
import { createSessionWriter, reopenSessionWriter } from '../../../harness/session/session-writer.js';
import type { SessionPayload } from '../../../shared/session-format.js';
import { assistant, results, toolResult, toolUse, usage, userText } from '../../support/session-fixtures.js';
import { tempDir } from '../../support/temp-dir.js';

const CHILD = '01a20000-0000-7000-8000-000000000001';

/** One payload of every type, as `append` takes them. */
const EVERY_PAYLOAD: SessionPayload[] = [
  {
    type: 'user_message',
    message: {
      role: 'user',
      content: [
        { type: 'text', text: 'look at this ✓ picture' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    },
  },
  {
    type: 'assistant_message',
    message: assistant(
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'redacted_thinking', data: 'xyz' },
      { type: 'text', text: 'reading it' },
      toolUse('call-1', 'read_file', { path: 'a.ts', nested: { list: [1, null, 'x'] } }),
    ),
    usage: usage(1200, 300, 10_000, 50),
    model: 'claude-sonnet-4-5',
  },
  {
    type: 'user_message',
    message: results(toolResult('call-1', 'line 1\nline 2'), toolResult('call-2', 'denied', true), {
      type: 'text',
      text: 'note',
    }),
  },
  { type: 'compaction', summary: 'we read a.ts', replacedMessages: 3 },
  { type: 'model_change', from: 'claude-sonnet-4-5', to: 'claude-opus-4-6' },
  { type: 'subagent_link', childSessionId: CHILD, callId: 'call-3', task: 'explore the tests' },
];

describe('session writer', () => {
  it('round-trips every payload type, one line per event, in a private file', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter({
      workspace: dir.path,
      model: 'claude-sonnet-4-5',
      policy: 'execute',
    });
    const ids = EVERY_PAYLOAD.map((payload) => writer.append(payload));
    await writer.close();

    expect(writer.file).toBe(path.join(dir.path, '.skate', 'sessions', `${writer.header.id}.jsonl`));
    expect((await stat(writer.file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(writer.file))).mode & 0o777).toBe(0o700);
    const text = await readFile(writer.file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(EVERY_PAYLOAD.length + 2);

    const session = await loadSession(writer.file);
    expect(session.warnings).toEqual([]);
    expect(session.header).toEqual({
      type: 'session',
      version: 2,
      id: writer.header.id,
      created: writer.header.created,
      cwd: dir.path,
      model: 'claude-sonnet-4-5',
      policy: 'execute',
    });
    expect(session.events.map((event) => event.payload)).toEqual(EVERY_PAYLOAD);
    expect(session.events.map((event) => event.id)).toEqual(ids);
    expect(session.events.map((event) => event.parentId)).toEqual([null, ...ids.slice(0, -1)]);
    for (const event of session.events) expect(Date.parse(event.timestamp)).not.toBeNaN();
  });

  it('keeps events in call order however appends and flushes interleave', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter({ workspace: dir.path, model: 'm', policy: 'execute' });
    const flushes: Promise<void>[] = [];
    for (let i = 0; i < 500; i++) {
      writer.userMessage(userText(`message ${i} ${'x'.repeat(i * 37)}`));
      if (i % 7 === 0) flushes.push(writer.flush());
    }
    await Promise.all(flushes);
    await writer.close();
    const session = await loadSession(writer.file);
    expect(
      session.events.map((event) =>
        event.payload.type === 'user_message' ? event.payload.message.content[0] : undefined,
      ),
    ).toEqual(
      Array.from({ length: 500 }, (_, i) => ({ type: 'text', text: `message ${i} ${'x'.repeat(i * 37)}` })),
    );
  });

  it('reports a failing disk through onError and never throws', async () => {
    await using dir = await tempDir();
    const created = await createSessionWriter({ workspace: dir.path, model: 'm', policy: 'execute' });
    await created.close();
    const errors: SessionError[] = [];
    // /dev/full fails every write with ENOSPC, as a full disk does.
    const writer = await reopenSessionWriter('/dev/full', created.header, [], {
      onError: (e) => errors.push(e),
    });
    writer.userMessage(userText('lost'));
    await writer.flush();
    expect(writer.status).toBe('failed');
    writer.userMessage(userText('also lost'));
    writer.assistantMessage(assistant({ type: 'text', text: 'x' }), usage(1, 1), 'm');
    await writer.close();
    expect(errors.map((error) => error.code)).toEqual(['io', 'closed']);
    expect(errors[0]!.message).toMatch(/ENOSPC/);
  });

  it('refuses an event it could not read back, and keeps the chain intact', async () => {
    await using dir = await tempDir();
    const errors: SessionError[] = [];
    const writer = await createSessionWriter(
      { workspace: dir.path, model: 'm', policy: 'execute' },
      { onError: (e) => errors.push(e) },
    );
    const first = writer.append({ type: 'user_message', message: userText('one') });
    // NaN would be written as null and make the whole file unreadable.
    writer.assistantMessage(assistant({ type: 'text', text: 'x' }), usage(Number.NaN, 1), 'm');
    const third = writer.append({ type: 'user_message', message: userText('three') });
    await writer.close();
    writer.userMessage(userText('after close'));
    expect(errors.map((error) => error.code)).toEqual(['invalid_event', 'closed']);
    expect(errors[0]!.message).toMatch(/assistant_message event not recorded/);
    const session = await loadSession(writer.file);
    expect(session.events.map((event) => [event.id, event.parentId])).toEqual([
      [first, null],
      [third, first],
    ]);
  });

  it('logs each message whole, records a model switch, and lists calls with their results on reading', async () => {
    await using dir = await tempDir();
    const writer = await createSessionWriter({
      workspace: dir.path,
      model: 'claude-sonnet-4-5',
      policy: 'execute',
    });
    writer.userMessage(userText('go'));
    writer.assistantMessage(
      assistant(toolUse('c1', 'grep', { pattern: 'x' })),
      usage(1, 1),
      'claude-opus-4-6',
    );
    const answer = results(
      toolResult('c1', 'no matches'),
      toolResult('c9', '?', true),
      userText('and?').content[0]!,
    );
    writer.toolResults(answer);
    await writer.close();
    const session = await loadSession(writer.file);
    const types = session.events.map((event) => event.payload);
    expect(types.map((payload) => payload.type)).toEqual([
      'user_message',
      'model_change',
      'assistant_message',
      'user_message',
    ]);
    expect(types[1]).toEqual({ type: 'model_change', from: 'claude-sonnet-4-5', to: 'claude-opus-4-6' });
    // The results message comes back exactly as the engine gave it, user text included.
    expect(types[3]).toEqual({ type: 'user_message', message: answer });
    expect(session.conversationAt().at(-1)).toEqual(answer);
    // The audit view pairs each call with its result; a result for no logged call is not listed.
    expect(sessionToolCalls(session.events)).toEqual([
      {
        callId: 'c1',
        name: 'grep',
        input: { pattern: 'x' },
        eventId: session.events[2]!.id,
        result: { eventId: session.events[3]!.id, output: 'no matches', isError: false },
      },
    ]);
  });
});
