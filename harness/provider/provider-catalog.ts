import type { ModelPrices, ProviderModel, ProviderSettings } from '../../shared/settings.js';

/**
 * The providers the user's settings name (`providers`), process-wide like the environment they
 * come with: the CLI sets them once after reading the settings, and the catalog (`knownModels`,
 * prices, context windows) and the provider router read them. A model `NAME/MODEL` belongs to
 * provider NAME; a model without a configured `NAME/` prefix is the Anthropic API's.
 */
let configured: Readonly<Record<string, ProviderSettings>> = {};
/** Context windows learned from a server (Ollama's /api/show), by full model id. */
const learned = new Map<string, number>();

export function setConfiguredProviders(
  providers: Readonly<Record<string, ProviderSettings>> | undefined,
): void {
  configured = providers ?? {};
  learned.clear();
}

export function configuredProviders(): Readonly<Record<string, ProviderSettings>> {
  return configured;
}

export interface ProviderModelRef {
  /** The provider's name in settings. */
  provider: string;
  settings: ProviderSettings;
  /** The id the provider's API knows (after `NAME/`; may itself hold `/`, as OpenRouter's do). */
  model: string;
}

/** The provider a model id names, or undefined for an Anthropic API model. */
export function providerOf(model: string): ProviderModelRef | undefined {
  const slash = model.indexOf('/');
  if (slash <= 0) return undefined;
  const provider = model.slice(0, slash);
  const settings = Object.hasOwn(configured, provider) ? configured[provider] : undefined;
  return settings ? { provider, settings, model: model.slice(slash + 1) } : undefined;
}

/** What the settings say of a model, if anything. */
export function providerModel(model: string): ProviderModel | undefined {
  const ref = providerOf(model);
  const models = ref?.settings.models;
  return ref && models && Object.hasOwn(models, ref.model) ? models[ref.model] : undefined;
}

/** Every `NAME/MODEL` the settings list, in their order. */
export function providerModelIds(): string[] {
  return Object.entries(configured).flatMap(([name, settings]) =>
    Object.keys(settings.models ?? {}).map((model) => `${name}/${model}`),
  );
}

export function providerPrices(model: string): Required<ModelPrices> | undefined {
  const prices = providerModel(model)?.prices;
  if (!prices) return undefined;
  return {
    input: prices.input,
    output: prices.output,
    cacheRead: prices.cacheRead ?? prices.input,
    cacheWrite: prices.cacheWrite ?? prices.input,
  };
}

/** The window the settings give, else the one a server said. */
export function knownProviderWindow(model: string): number | undefined {
  return providerModel(model)?.contextWindow ?? learned.get(model);
}

export function learnContextWindow(model: string, tokens: number): void {
  learned.set(model, tokens);
}
