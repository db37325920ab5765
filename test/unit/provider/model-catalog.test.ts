import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  contextWindow,
  DEFAULT_MODEL,
  deprecationDate,
  estimateCostUsd,
  isDeprecated,
  knownModels,
  modelPrice,
} from '../../../harness/provider/model-catalog.js';

const require = createRequire(import.meta.url);
const sdkDir = require.resolve('@anthropic-ai/sdk').replace(/index\.js$/, '');

const million = (tokens: Partial<Record<'input' | 'output' | 'write' | 'read', number>>) => ({
  inputTokens: (tokens.input ?? 0) * 1_000_000,
  outputTokens: (tokens.output ?? 0) * 1_000_000,
  cacheWriteTokens: (tokens.write ?? 0) * 1_000_000,
  cacheReadTokens: (tokens.read ?? 0) * 1_000_000,
});

describe('model catalog', () => {
  it('defaults to a current model from the SDK list', async () => {
    expect(isDeprecated(DEFAULT_MODEL)).toBe(false);
    expect(knownModels()).toContain(DEFAULT_MODEL);
    // The SDK's `Model` union names it, so the id is not a guess.
    const types = await readFile(`${sdkDir}resources/messages/messages.d.ts`, 'utf8');
    expect(types).toContain(`'${DEFAULT_MODEL}'`);
  });

  it('knows every model the SDK marks as deprecated', () => {
    // The SDK does not export its table; read it from the file so an upgrade that adds one fails here.
    const sdk = require(`${sdkDir}internal/data/deprecated-models.js`) as {
      DEPRECATED_MODELS: Record<string, string>;
    };
    for (const model of Object.keys(sdk.DEPRECATED_MODELS)) expect(isDeprecated(model), model).toBe(true);
    expect(deprecationDate('claude-sonnet-4-5')).toBe('November 30th, 2026');
    expect(deprecationDate(DEFAULT_MODEL)).toBeUndefined();
  });

  it('prices input, output, 5-minute cache writes and cache reads', () => {
    expect(modelPrice('claude-sonnet-4-6')).toEqual({
      input: 3,
      output: 15,
      cacheWrite: 3.75,
      cacheRead: 0.3,
    });
    expect(
      estimateCostUsd('claude-sonnet-4-6', million({ input: 1, output: 1, write: 1, read: 1 })),
    ).toBeCloseTo(22.05);
    expect(estimateCostUsd('claude-haiku-4-5', million({ input: 2, output: 0.5 }))).toBeCloseTo(4.5);
    expect(
      estimateCostUsd('claude-opus-4-6', {
        inputTokens: 1000,
        outputTokens: 200,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      }),
    ).toBeCloseTo(0.01);
  });

  it('matches dated snapshots to their model, not just their family', () => {
    expect(modelPrice('claude-opus-4-1-20250805')?.input).toBe(15);
    expect(modelPrice('claude-opus-4-5-20251101')?.input).toBe(5);
    expect(modelPrice('claude-haiku-4-5-20251001')?.output).toBe(5);
  });

  it('falls back to the family price for unknown models, else undefined', () => {
    expect(modelPrice('claude-sonnet-9-1')).toEqual(modelPrice('claude-sonnet-4-6'));
    expect(modelPrice('claude-opus-5-5')?.output).toBe(25);
    expect(estimateCostUsd('claude-fable-5', million({ input: 1 }))).toBeUndefined();
    expect(estimateCostUsd('gpt-4o', million({ input: 1 }))).toBeUndefined();
  });

  it('gives context windows, with a conservative default', () => {
    expect(contextWindow(DEFAULT_MODEL)).toBe(200_000);
    expect(contextWindow('some-future-model')).toBe(200_000);
  });
});
