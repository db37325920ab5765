import type { Message } from '../../shared/conversation.js';
import { SessionError } from './session-error.js';
import { sessionFile } from './session-paths.js';
import { loadSession } from './session-reader.js';

/**
 * The recorded conversation of the sub-agent that spawn_agent call `callId`
 * started, found through the `subagent_link` events of session `rootId` and
 * of the sub-agent sessions below it (a grandchild is linked from its parent's
 * log). Reads the logs as they are now, so a running sub-agent shows its
 * conversation so far.
 */
export async function subAgentConversation(
  workspace: string,
  rootId: string,
  callId: string,
): Promise<Message[]> {
  const queue = [rootId];
  const seen = new Set<string>();
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (seen.has(id)) continue;
    seen.add(id);
    const session = await loadSession(sessionFile(workspace, id));
    for (const { payload } of session.events) {
      if (payload.type !== 'subagent_link') continue;
      if (payload.callId === callId) {
        return (await loadSession(sessionFile(workspace, payload.childSessionId))).conversationAt();
      }
      queue.push(payload.childSessionId);
    }
  }
  throw new SessionError('missing', `no sub-agent session of call ${callId} below session ${rootId}`);
}
