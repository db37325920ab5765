import type { TokenUsage } from '../../shared/engine-events.js';
import { knownProviderWindow, providerModelIds, providerOf, providerPrices } from './provider-catalog.js';

/**
 * What Skate knows about Claude models without asking the API: the default,
 * context windows, prices and deprecations. Model ids come from the SDK's
 * `Model` union (`@anthropic-ai/sdk` resources/messages/messages.ts).
 */

/**
 * The newest Sonnet in the SDK's model list, which is also the model the
 * SDK's own examples use; it is in neither deprecation table.
 */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** USD per million tokens. `cacheWrite` is the 5-minute cache write. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

export type ModelFamily = 'opus' | 'sonnet' | 'haiku' | 'fable' | 'mythos';

/**
 * Published list prices. 5-minute cache writes cost 1.25× input and cache
 * reads 0.1× input on every model, so only input and output are written here.
 */
const LIST_PRICES: Readonly<Record<string, readonly [input: number, output: number]>> = {
  'claude-opus-4-6': [5, 25],
  'claude-opus-4-5': [5, 25],
  'claude-opus-4-1': [15, 75],
  'claude-opus-4-0': [15, 75],
  'claude-opus-4-20250514': [15, 75],
  'claude-sonnet-4-6': [3, 15],
  'claude-sonnet-4-5': [3, 15],
  'claude-sonnet-4-0': [3, 15],
  'claude-sonnet-4-20250514': [3, 15],
  'claude-3-7-sonnet': [3, 15],
  'claude-3-5-sonnet': [3, 15],
  'claude-3-opus': [15, 75],
  'claude-haiku-4-5': [1, 5],
  'claude-3-5-haiku': [0.8, 4],
  'claude-3-haiku': [0.25, 1.25],
};

/**
 * The latest published price of each line, for models newer than the table.
 * Fable and Mythos have no entry: a guess there would be a made-up number.
 */
const FAMILY_PRICES: Readonly<Partial<Record<ModelFamily, readonly [input: number, output: number]>>> = {
  opus: [5, 25],
  sonnet: [3, 15],
  haiku: [1, 5],
};

/**
 * Input context windows in tokens. 200K is the standard window of every model
 * here; larger windows are opt-in or tier-gated, so assuming them would let a
 * conversation overflow. The Models API (`max_input_tokens`) is authoritative.
 */
const DEFAULT_CONTEXT_WINDOW = 200_000;
const CONTEXT_WINDOWS: Readonly<Record<string, number>> = Object.fromEntries(
  [
    'claude-fable-5-2',
    'claude-mythos-5-2',
    'claude-haiku-5-5',
    'claude-sonnet-5-5',
    'claude-fable-5-1',
    'claude-opus-5-5',
    'claude-mythos-5-1',
    'claude-sonnet-5',
    'claude-fable-5',
    'claude-mythos-5',
    'claude-opus-5',
    'claude-opus-4-8',
    'claude-opus-4-7',
    'claude-mythos-preview',
    'claude-opus-4-6',
    'claude-sonnet-4-6',
    'claude-haiku-4-5',
    'claude-haiku-4-5-20251001',
    'claude-opus-4-5',
    'claude-opus-4-5-20251101',
    'claude-sonnet-4-5',
    'claude-sonnet-4-5-20250929',
  ].map((id) => [id, 200_000]),
);

/**
 * Copied from the SDK, which does not export it: the union of
 * `internal/data/deprecated-models.ts` and the table in
 * `resources/messages/messages.ts` (the second lacks `claude-mythos-preview`).
 * Values are the end-of-life dates as the SDK words them.
 */
const DEPRECATED_MODELS: Readonly<Record<string, string>> = {
  'claude-mythos-preview': 'June 30th, 2026',
  'claude-sonnet-4-5': 'November 30th, 2026',
  'claude-sonnet-4-5-20250929': 'November 30th, 2026',
};

/** The line a model id belongs to, from its name; undefined when it names none. */
export function modelFamily(model: string): ModelFamily | undefined {
  const match = /(opus|sonnet|haiku|fable|mythos)/.exec(model.toLowerCase());
  return match?.[1] as ModelFamily | undefined;
}

/**
 * A model's price: the table entry whose id is the longest prefix of `model`
 * (so dated snapshots such as `claude-opus-4-1-20250805` match), else the
 * price of its family, else undefined.
 */
export function modelPrice(model: string): ModelPrice | undefined {
  const ref = providerOf(model);
  // A provider's model costs what the settings say; Claude on Bedrock or Vertex costs Claude's list price.
  if (ref) {
    const own = providerPrices(model);
    if (own || (ref.settings.type !== 'bedrock' && ref.settings.type !== 'vertex')) return own;
    return modelPrice(claudeId(ref.model));
  }
  const id = model.toLowerCase();
  let best: string | undefined;
  for (const key of Object.keys(LIST_PRICES)) {
    if (
      (id === key || id.startsWith(`${key}-`) || id.startsWith(`${key}@`)) &&
      key.length > (best?.length ?? 0)
    )
      best = key;
  }
  const family = modelFamily(id);
  const pair = best ? LIST_PRICES[best] : family ? FAMILY_PRICES[family] : undefined;
  if (!pair) return undefined;
  const [input, output] = pair;
  return { input, output, cacheWrite: (input * 5) / 4, cacheRead: input / 10 };
}

/** What `usage` cost in USD, or undefined for a model whose price is unknown. */
export function estimateCostUsd(model: string, usage: TokenUsage): number | undefined {
  const price = modelPrice(model);
  if (!price) return undefined;
  const perToken =
    usage.inputTokens * price.input +
    usage.outputTokens * price.output +
    usage.cacheWriteTokens * price.cacheWrite +
    usage.cacheReadTokens * price.cacheRead;
  return perToken / 1_000_000;
}

/** The ids of the SDK's model list, newest first, then the models the settings' providers list. */
export function knownModels(): string[] {
  return [...Object.keys(CONTEXT_WINDOWS), ...providerModelIds()];
}

/**
 * The input context window of a model, in tokens; 200K for a Claude model not in the list (on
 * Bedrock and Vertex too). A settings provider's other models have what the settings say or the
 * server said (`ProviderRouter.prepareModel`), else `ASSUMED_CONTEXT_WINDOW`, which the router says it assumed.
 */
export function contextWindow(model: string): number {
  const ref = providerOf(model);
  if (ref) {
    const known = knownProviderWindow(model);
    if (known !== undefined) return known;
    const claude =
      ref.settings.type === 'bedrock' || ref.settings.type === 'vertex' || ref.settings.type === 'anthropic';
    return claude ? contextWindow(claudeId(ref.model)) : ASSUMED_CONTEXT_WINDOW;
  }
  return CONTEXT_WINDOWS[model] ?? DEFAULT_CONTEXT_WINDOW;
}

/**
 * What an unknown window of a non-Claude model is taken to be: small, so a conversation is
 * compacted early rather than silently truncated by a server with a smaller one.
 */
export const ASSUMED_CONTEXT_WINDOW = 32_768;

/** Bedrock's `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and Vertex's `claude-sonnet-4-5@20250929` as Claude ids. */
function claudeId(model: string): string {
  const start = model.indexOf('claude-');
  const id = start >= 0 ? model.slice(start) : model;
  return id.replace(/-v\d+(:\d+)?$/, '').replace(/@(\d{8})$/, '-$1');
}

/** True when the SDK lists the model as deprecated (headed for retirement). */
export function isDeprecated(model: string): boolean {
  return Object.hasOwn(DEPRECATED_MODELS, model);
}

/** The end-of-life date the SDK gives a deprecated model, for a warning. */
export function deprecationDate(model: string): string | undefined {
  return isDeprecated(model) ? DEPRECATED_MODELS[model] : undefined;
}
