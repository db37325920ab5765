import { describe, expect, it } from 'vitest';
import { SessionError } from '../../../harness/session/session-error.js';
import { createSessionWriter, type SessionWriter } from '../../../harness/session/session-writer.js';
import { subAgentConversation } from '../../../harness/session/sub-agent-conversation.js';
import type { Message } from '../../../shared/conversation.js';
import { tempDir } from '../../support/temp-dir.js';

const text = (role: Message['role'], body: string): Message => ({
  role,
  content: [{ type: 'text', text: body }],
});

async function child(
  workspace: string,
  parent: SessionWriter,
  callId: string,
  task: string,
): Promise<SessionWriter> {
  const writer = await createSessionWriter(
    { workspace, model: 'm', policy: 'readonly', parentSessionId: parent.header.id },
    { sync: 'close' },
  );
  parent.append({ type: 'subagent_link', childSessionId: writer.header.id, callId, task });
  writer.append({ type: 'user_message', message: text('user', task) as Message & { role: 'user' } });
  return writer;
}

describe('subAgentConversation', () => {
  it("finds a sub-agent's log by its spawn call, below the root and below another sub-agent", async () => {
    await using dir = await tempDir();
    const root = await createSessionWriter(
      { workspace: dir.path, model: 'm', policy: 'execute' },
      { sync: 'close' },
    );
    const first = await child(dir.path, root, 'call-1', 'explore');
    const second = await child(dir.path, root, 'call-2', 'implement');
    const nested = await child(dir.path, first, 'call-3', 'read the lexer');
    for (const writer of [nested, second, first, root]) await writer.close();

    const of = (callId: string) => subAgentConversation(dir.path, root.header.id, callId);
    expect(await of('call-2')).toEqual([text('user', 'implement')]);
    expect(await of('call-3')).toEqual([text('user', 'read the lexer')]);
    const missing = await of('call-9').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(SessionError);
    expect((missing as SessionError).code).toBe('missing');
  });

  it('reads a log still being written: the conversation so far', async () => {
    await using dir = await tempDir();
    const root = await createSessionWriter({ workspace: dir.path, model: 'm', policy: 'execute' });
    const running = await child(dir.path, root, 'call-1', 'explore');
    await Promise.all([root.flush(), running.flush()]);
    expect(await subAgentConversation(dir.path, root.header.id, 'call-1')).toEqual([text('user', 'explore')]);
    await running.close();
    await root.close();
  });
});
