import type { TokenUsage } from '../../shared/engine-events.js';
import { messageText } from '../engine/message-text.js';
import { knownModels, modelFamily, modelPrice } from '../provider/model-catalog.js';
import type { ModelProvider } from '../provider/model-provider.js';
import { providerOf } from '../provider/provider-catalog.js';
import { TITLE_CHARS } from '../session/fallback-title.js';

const TITLE_SYSTEM_PROMPT = [
  "You name a coding agent's session from the user's first request, for a list of sessions.",
  'Reply with the title alone: 3 to 7 words, no quotes, no final full stop, in the language of the request.',
].join('\n');

/** Characters of the first prompt and reply sent with the request: enough to name it, cheap to send. */
const CONTEXT_CHARS = 2_000;
const TITLE_MAX_TOKENS = 40;

/**
 * The model titles are asked of: the newest Haiku the SDK lists (the cheap
 * line), unless the session's own model is cheaper per output token or a settings provider's.
 */
export function titleModel(sessionModel: string): string {
  // A settings provider's model titles its own sessions: Haiku would need another server and key.
  if (providerOf(sessionModel)) return sessionModel;
  const haiku = knownModels().find((model) => modelFamily(model) === 'haiku') ?? sessionModel;
  const own = modelPrice(sessionModel)?.output;
  const cheap = modelPrice(haiku)?.output;
  return own !== undefined && cheap !== undefined && own < cheap ? sessionModel : haiku;
}

export interface TitleRequest {
  provider: ModelProvider;
  model: string;
  prompt: string;
  /** The text of the first reply, when there was one. */
  reply?: string;
  signal: AbortSignal;
}

/**
 * Asks the model for a short title. Resolves to undefined on any failure (an
 * error from the API, an empty or cut reply, an abort): a title is a nicety,
 * and the caller falls back to the first line of the prompt.
 */
export async function requestTitle(
  request: TitleRequest,
): Promise<{ title: string; usage: TokenUsage } | undefined> {
  const context = [
    `The request:\n${request.prompt.slice(0, CONTEXT_CHARS)}`,
    ...(request.reply ? [`The start of the agent's reply:\n${request.reply.slice(0, CONTEXT_CHARS)}`] : []),
  ].join('\n\n');
  try {
    const stream = request.provider.stream(
      {
        model: request.model,
        system: TITLE_SYSTEM_PROMPT,
        messages: [{ role: 'user', content: [{ type: 'text', text: `${context}\n\nThe title:` }] }],
        tools: [],
        maxTokens: TITLE_MAX_TOKENS,
      },
      request.signal,
    );
    for await (const event of stream) {
      if (event.type === 'error') return undefined;
      if (event.type !== 'message_done') continue;
      const title = cleanTitle(messageText(event.message));
      return title ? { title, usage: event.usage } : undefined;
    }
  } catch {
    // A provider promises not to throw; one that does still only costs the title.
  }
  return undefined;
}

/** The first line of the model's reply, without quotes, markup or a final full stop, cut to `TITLE_CHARS`. */
export function cleanTitle(text: string): string | undefined {
  const line = text.split('\n').find((each) => each.trim() !== '') ?? '';
  const title = line
    .replace(/^\s*(#+\s*|title:\s*)/i, '')
    .replace(/^["'`*_]+|["'`*_.]+$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (title === '') return undefined;
  return title.length <= TITLE_CHARS ? title : `${title.slice(0, TITLE_CHARS - 1)}…`;
}
