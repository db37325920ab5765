import type { ContentBlock } from '@agentclientprotocol/sdk';
import { ImageInput } from '../../shared/engine-events.js';
import { fenced } from './tool-call-view.js';

/**
 * An ACP prompt as the engine's prompt: text as is, images the model takes,
 * resource links as their URI (the agent reads files itself), embedded text
 * resources inline with their URI. What cannot be sent (audio, binary blobs,
 * other image types) is named in the text, so nothing is dropped silently.
 */
export function promptInput(blocks: readonly ContentBlock[]): { text: string; images: ImageInput[] } {
  const parts: string[] = [];
  const images: ImageInput[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image': {
        const image = ImageInput.safeParse({ mediaType: block.mimeType, data: block.data });
        if (image.success) images.push(image.data);
        else
          parts.push(
            `[an image of type ${block.mimeType} was attached; only PNG, JPEG, GIF and WebP can be sent]`,
          );
        break;
      }
      case 'resource_link':
        parts.push(`[${block.name}](${block.uri})`);
        break;
      case 'resource':
        if ('text' in block.resource) parts.push(`${block.resource.uri}:\n${fenced(block.resource.text)}`);
        else parts.push(`[${block.resource.uri}: binary content was attached and cannot be sent]`);
        break;
      case 'audio':
        parts.push('[audio was attached; Skate cannot send audio to the model]');
        break;
    }
  }
  return { text: parts.join('\n\n'), images };
}
