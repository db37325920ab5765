import type { LoggedMessage } from '../runtime/logged-message.js';
import type { Block } from './ui-state.js';

/** A message of the main conversation landed in the session log (after the events that showed it). */
export interface MessageLoggedEvent {
  type: 'message_logged';
  agent: [];
  logged: LoggedMessage;
}

/**
 * Marks the blocks `logged` showed with where their message is in the log:
 * a prompt, the latest user block; a reply, its text, thinking and tool
 * blocks since the last marked one; tool results, the calls they answer.
 * Blocks are replaced, not changed (renderers cache by identity).
 */
export function attachOrigins(blocks: Block[], logged: LoggedMessage): void {
  const origin = { eventId: logged.eventId, parentId: logged.parentId };
  switch (logged.kind) {
    case 'prompt':
      for (let i = blocks.length - 1; i >= 0; i--) {
        const block = blocks[i]!;
        if (block.kind !== 'user') continue;
        if (!block.origin) blocks[i] = { ...block, origin };
        return;
      }
      return;
    case 'reply':
      for (let i = blocks.length - 1; i >= 0; i--) {
        const block = blocks[i]!;
        if (block.kind === 'user' || (block.kind !== 'notice' && block.origin)) return;
        if (block.kind !== 'notice') blocks[i] = { ...block, origin };
      }
      return;
    case 'tool_results': {
      const open = new Set(logged.callIds);
      for (let i = blocks.length - 1; i >= 0 && open.size > 0; i--) {
        const block = blocks[i]!;
        if (block.kind !== 'tool' || !open.has(block.callId)) continue;
        open.delete(block.callId);
        blocks[i] = { ...block, resultEventId: logged.eventId };
      }
      return;
    }
  }
}

/**
 * Where `:fork` at `block` branches: through its message (a reply with tool
 * calls: through their results, so the new session can go on from there),
 * or, for a prompt, just before it so it can be asked again. Undefined when
 * the block's message is not in the log (yet), or a prompt is the first event.
 */
export function forkPoint(
  blocks: readonly Block[],
  block: Block,
): { atEventId: string; retype?: string } | { error: string } {
  if (block.kind === 'notice') return { error: 'fork at a prompt, a reply or a tool call' };
  if (!block.origin) return { error: 'that part is not in the session log yet' };
  if (block.kind === 'user') {
    if (block.origin.parentId === null)
      return { error: 'nothing comes before the first prompt: :clear starts an empty conversation' };
    return { atEventId: block.origin.parentId, retype: block.text };
  }
  const eventId = block.origin.eventId;
  const results = blocks.find(
    (each) => each.kind === 'tool' && each.origin?.eventId === eventId && each.resultEventId !== undefined,
  );
  return { atEventId: results?.kind === 'tool' && results.resultEventId ? results.resultEventId : eventId };
}
