import type { ContentBlock, Message } from '../../shared/conversation.js';

/** The text blocks of a message, joined: what a user reads as the reply. */
export function messageText(message: Message): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text;
}

/** The tool calls of an assistant message, in the order the model made them. */
export function toolUses(message: Message): Extract<ContentBlock, { type: 'tool_use' }>[] {
  return message.content.filter(
    (block): block is Extract<ContentBlock, { type: 'tool_use' }> => block.type === 'tool_use',
  );
}
