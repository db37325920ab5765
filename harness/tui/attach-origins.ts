import type { LoggedMessage, MessageRef } from '../runtime/logged-message.js';
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
 * Blocks from `fresh` on were made in this batch and never drawn, so they are
 * marked in place (a copy per block tripled the time to load a long session);
 * older ones are replaced, not changed, as renderers cache by identity.
 */
export function attachOrigins(blocks: Block[], logged: LoggedMessage, fresh: number): void {
  // The logged entry is a MessageRef already: no object per block (long sessions load thousands).
  const origin: MessageRef = logged;
  type Marked = Block & { origin?: MessageRef; resultEventId?: string };
  const mark = (i: number, change: { origin: MessageRef } | { resultEventId: string }): void => {
    const block = blocks[i] as Marked;
    if (i < fresh) blocks[i] = { ...block, ...change } as Block;
    else if ('origin' in change) block.origin = change.origin;
    else block.resultEventId = change.resultEventId;
  };
  switch (logged.kind) {
    case 'prompt':
      for (let i = blocks.length - 1; i >= 0; i--) {
        const block = blocks[i]!;
        if (block.kind !== 'user') continue;
        if (!block.origin) mark(i, { origin });
        return;
      }
      return;
    case 'reply':
      for (let i = blocks.length - 1; i >= 0; i--) {
        const block = blocks[i]!;
        if (block.kind === 'user' || (block.kind !== 'notice' && block.origin)) return;
        if (block.kind !== 'notice') mark(i, { origin });
      }
      return;
    case 'tool_results': {
      const open = new Set(logged.callIds);
      for (let i = blocks.length - 1; i >= 0 && open.size > 0; i--) {
        const block = blocks[i]!;
        if (block.kind !== 'tool' || !open.has(block.callId)) continue;
        open.delete(block.callId);
        mark(i, { resultEventId: logged.eventId });
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
