import type { ContentBlock as AcpContentBlock, SessionUpdate } from '@agentclientprotocol/sdk';
import type { ContentBlock, Message } from '../../shared/conversation.js';
import { capped, fenced, toolKind, toolLocations, toolTitle } from './tool-call-view.js';

type ToolResultBlock = Extract<ContentBlock, { type: 'tool_result' }>;

/**
 * A stored conversation replayed as `session/update`s (for `session/load`):
 * the user's and the model's messages as chunks, each tool call once, with its
 * result's status and text. Thinking is replayed as thought chunks.
 */
export function historyUpdates(messages: readonly Message[], workspace: string): SessionUpdate[] {
  const results = new Map<string, ToolResultBlock>();
  for (const message of messages) {
    for (const block of message.content) if (block.type === 'tool_result') results.set(block.callId, block);
  }
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    for (const block of message.content) {
      const chunk = chunkOf(block);
      if (chunk) {
        const kind =
          block.type === 'thinking'
            ? 'agent_thought_chunk'
            : message.role === 'user'
              ? 'user_message_chunk'
              : 'agent_message_chunk';
        updates.push({ sessionUpdate: kind, content: chunk });
      } else if (block.type === 'tool_use') {
        const result = results.get(block.id);
        const text = result ? capped(result.output) : 'No result was recorded for this call.';
        updates.push({
          sessionUpdate: 'tool_call',
          toolCallId: block.id,
          title: toolTitle(block.name, block.input),
          name: block.name,
          kind: toolKind(block.name),
          status: result && !result.isError ? 'completed' : 'failed',
          locations: toolLocations(block.name, block.input, workspace),
          content: text === '' ? [] : [{ type: 'content', content: { type: 'text', text: fenced(text) } }],
          rawInput: block.input,
        });
      }
    }
  }
  return updates;
}

function chunkOf(block: ContentBlock): AcpContentBlock | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'text', text: block.thinking };
    case 'image':
      return { type: 'image', mimeType: block.mediaType, data: block.data };
    default:
      return undefined;
  }
}
