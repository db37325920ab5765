import type { ContentBlock, Message, StopReason } from '../../shared/conversation.js';
import type { TokenUsage } from '../../shared/engine-events.js';

/** A tool as the model sees it. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  system: string;
  /**
   * Characters at the start of `system` that siblings share (a sub-agent's dispatch prefix): a
   * provider that caches by prefix may mark that boundary too.
   */
  systemCachePrefix?: number | undefined;
  messages: readonly Message[];
  tools: readonly ModelTool[];
  maxTokens: number;
  /** Extended thinking with this budget, when set. */
  thinkingBudgetTokens?: number;
}

export type ProviderErrorKind =
  /** The API key is missing, wrong or revoked: retrying will not help. */
  | 'authentication'
  /** The request itself is wrong (a 400): retrying will not help. */
  | 'bad_request'
  /** The conversation no longer fits the model's context window. */
  | 'context_overflow'
  /** 429, 529 or 5xx still failing after the retries. */
  | 'unavailable'
  /** The connection dropped and did not come back within the retries. */
  | 'connection'
  /** The caller's signal aborted the request. */
  | 'aborted';

export interface ProviderError {
  kind: ProviderErrorKind;
  message: string;
  status?: number;
}

/**
 * What a provider streams. A stream never throws: failures are events, and it
 * ends with exactly one `message_done` or `error`. Content indexes are the
 * block positions in the assistant message.
 *
 * The provider accumulates the stream, once: the deltas are for showing progress,
 * and each block arrives finished in `block_done` (text whole, a tool call's
 * input parsed), the same block object `message_done` then holds. A consumer
 * never rebuilds blocks from deltas.
 */
export type ProviderEvent =
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'thinking_delta'; index: number; text: string }
  | { type: 'tool_use_start'; index: number; id: string; name: string }
  | { type: 'tool_input_delta'; index: number; json: string }
  /** Block `index` is complete. A tool call's input that is not valid JSON is `{}` here. */
  | { type: 'block_done'; index: number; block: ContentBlock }
  /**
   * The request is being retried after `reason`. When `discard` is true the
   * stream had already produced content, which the caller must drop: the
   * retry starts the message over.
   */
  | { type: 'retry'; attempt: number; delayMs: number; reason: string; discard: boolean }
  | { type: 'message_done'; message: Message; stopReason: StopReason; usage: TokenUsage }
  /**
   * The stream failed or was aborted. `partial` is the content streamed before
   * that (finished blocks, and the text of a block still open), so an interrupted
   * reply can keep what its user already saw.
   */
  | { type: 'error'; error: ProviderError; partial?: ContentBlock[] };

/**
 * The model, as the engine sees it: one injected interface. Unit tests use a
 * scripted fake; integration tests run the real SDK against a local server.
 */
export interface ModelProvider {
  readonly name: string;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>;
  /** The context window of a model, in tokens. */
  contextWindow(model: string): number;
  /**
   * Learns what `contextWindow` needs of a model it cannot know offline (a local server's window,
   * asked once); resolves to a note for the user the first time, saying what it found or assumed.
   * Never rejects; may be absent.
   */
  prepareModel?(model: string): Promise<string | undefined>;
  /**
   * Loads and compiles what the first request needs, called while the executor starts so the
   * two overlap. Sends nothing anywhere; may be absent.
   */
  warm?(): Promise<void>;
}
