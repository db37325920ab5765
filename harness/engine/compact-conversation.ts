import { type ContentBlock, compactionSummaryMessage, type Message } from '../../shared/conversation.js';
import type { TokenUsage } from '../../shared/engine-events.js';
import type { ModelProvider, ProviderError } from '../provider/model-provider.js';
import { messageText } from './message-text.js';

export interface CompactionOptions {
  provider: ModelProvider;
  model: string;
  messages: readonly Message[];
  signal: AbortSignal;
  /** The model's context window, in tokens: bounds what is kept and what is sent for summary. */
  windowTokens: number;
  /** Exchanges (an assistant message and the tool results after it) kept verbatim at most. */
  keepExchanges: number;
  maxSummaryTokens: number;
}

export type CompactionResult =
  | {
      status: 'compacted';
      /** The new conversation: one summary message, then the kept messages. */
      messages: Message[];
      summary: string;
      replacedMessages: number;
      usage: TokenUsage;
    }
  /** Nothing old enough to summarise. */
  | { status: 'skipped'; reason: string }
  | { status: 'failed'; error: ProviderError }
  | { status: 'cancelled' };

const SUMMARY_SYSTEM_PROMPT = [
  "You summarise the earlier part of a coding agent's session so that the agent can continue the work with a shorter context.",
  'Write a summary that lets the agent carry on without the original messages. Include:',
  "- the user's requests, goals and constraints (quote short instructions verbatim);",
  '- decisions made and why;',
  '- files read, created or changed (with paths) and what changed;',
  '- commands run and their outcomes, errors met and how they were resolved;',
  '- what was in progress and what remains to do.',
  'Be concise and factual. Use bullet points. No preamble.',
].join('\n');

/** Characters per token, roughly, for English and code: only used to keep sizes in bounds. */
const CHARS_PER_TOKEN = 4;
const MAX_BLOCK_CHARS = 4_000;

/**
 * Replaces the older part of a conversation with a model-written summary.
 * The kept part starts at an assistant message, so a tool_use and its
 * tool_result (always in the next message) are never separated. The older
 * part goes to the model as a transcript in one text message: a request that
 * carries tool_use blocks must also carry the tools, and this one has none.
 */
export async function compactConversation(options: CompactionOptions): Promise<CompactionResult> {
  const { messages, windowTokens } = options;
  const cut = compactionCut(messages, options.keepExchanges, windowTokens);
  if (cut === undefined) return { status: 'skipped', reason: 'there is no older part to summarise' };
  const older = messages.slice(0, cut);
  const transcript = renderTranscript(older, Math.floor(windowTokens * 0.5 * CHARS_PER_TOKEN));
  const request = {
    model: options.model,
    system: SUMMARY_SYSTEM_PROMPT,
    messages: [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: `${transcript}\n\nWrite the summary of the session above now.` },
        ],
      },
    ],
    tools: [],
    maxTokens: options.maxSummaryTokens,
  };
  try {
    for await (const event of options.provider.stream(request, options.signal)) {
      if (event.type === 'error') {
        return event.error.kind === 'aborted' || options.signal.aborted
          ? { status: 'cancelled' }
          : { status: 'failed', error: event.error };
      }
      if (event.type !== 'message_done') continue;
      const summary = messageText(event.message).trim();
      if (!summary)
        return { status: 'failed', error: { kind: 'bad_request', message: 'the summary was empty' } };
      return {
        status: 'compacted',
        messages: [compactionSummaryMessage(summary), ...messages.slice(cut)],
        summary,
        replacedMessages: cut,
        usage: event.usage,
      };
    }
  } catch (error) {
    if (options.signal.aborted) return { status: 'cancelled' };
    const message = error instanceof Error ? error.message : String(error);
    return { status: 'failed', error: { kind: 'unavailable', message } };
  }
  if (options.signal.aborted) return { status: 'cancelled' };
  return { status: 'failed', error: { kind: 'connection', message: 'the summary stream ended early' } };
}

/**
 * Where the kept part starts: the index of an assistant message, keeping at
 * most `keepExchanges` exchanges, and fewer while they would fill more than
 * half the window. Undefined when nothing before it would be summarised.
 */
export function compactionCut(
  messages: readonly Message[],
  keepExchanges: number,
  windowTokens: number,
): number | undefined {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant' && index > 0) starts.push(index);
  });
  if (starts.length === 0) return undefined;
  const budgetChars = windowTokens * 0.5 * CHARS_PER_TOKEN;
  for (let keep = Math.min(Math.max(1, keepExchanges), starts.length); keep >= 1; keep--) {
    const cut = starts[starts.length - keep]!;
    if (keep === 1 || sizeOf(messages.slice(cut)) <= budgetChars) return cut;
  }
  return undefined;
}

/** The older messages as plain text, each long block clipped, the whole clipped in the middle. */
export function renderTranscript(messages: readonly Message[], maxChars: number): string {
  const parts = messages.map(
    (message) =>
      `## ${message.role === 'user' ? 'User' : 'Assistant'}\n${message.content.map(renderBlock).filter(Boolean).join('\n')}`,
  );
  const text = parts.join('\n\n');
  if (text.length <= maxChars) return text;
  // The start holds the task; the end holds where the work got to.
  const head = Math.floor(maxChars * 0.3);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n\n[… ${text.length - maxChars} characters left out …]\n\n${text.slice(-tail)}`;
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return clip(block.text);
    case 'image':
      return '[image]';
    case 'thinking':
    case 'redacted_thinking':
      return '';
    case 'tool_use':
      return `[called ${block.name} ${clip(JSON.stringify(block.input) ?? '')}]`;
    case 'tool_result':
      return `[${block.isError ? 'error result' : 'result'}]\n${clip(block.output)}`;
  }
}

function clip(text: string): string {
  if (text.length <= MAX_BLOCK_CHARS) return text;
  const half = MAX_BLOCK_CHARS / 2;
  return `${text.slice(0, half)}\n[… ${text.length - MAX_BLOCK_CHARS} characters left out …]\n${text.slice(-half)}`;
}

function sizeOf(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'text') chars += block.text.length;
      else if (block.type === 'tool_result') chars += block.output.length;
      else if (block.type === 'tool_use') chars += JSON.stringify(block.input)?.length ?? 0;
      else if (block.type === 'thinking') chars += block.thinking.length;
      else if (block.type === 'image') chars += 1_600 * CHARS_PER_TOKEN;
    }
  }
  return chars;
}
