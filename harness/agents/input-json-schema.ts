import * as z from 'zod';

const made = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * A zod schema as the model sees a tool's input (`io: 'input'`: fields with defaults are optional),
 * without `$schema`. Made once per schema: harness tools are built for every agent and sub-agent,
 * and generating it took ~2 ms each time. Shared, so callers copy before changing it.
 */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let json = made.get(schema);
  if (!json) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' });
    json = rest;
    made.set(schema, json);
  }
  return json;
}
