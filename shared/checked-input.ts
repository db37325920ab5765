import type * as z from 'zod';

/**
 * A tRPC input parser that keeps zod off a process's start: `check`, written by hand, answers
 * for the inputs it accepts (returning what zod would); the zod schema, loaded the first time
 * `check` refuses one, decides the rest and words its refusal, so errors read as zod's do.
 */
export function checkedInput<T>(
  check: (value: unknown) => T | undefined,
  schema: () => Promise<z.ZodType<T>>,
): (value: unknown) => T | Promise<T> {
  return (value) => check(value) ?? parseWithZod(value, schema);
}

async function parseWithZod<T>(value: unknown, schema: () => Promise<z.ZodType<T>>): Promise<T> {
  const [parsed, { prettifyZodError }] = await Promise.all([
    schema().then((s) => s.safeParse(value)),
    import('./zod-errors.js'),
  ]);
  if (parsed.success) return parsed.data;
  // tRPC makes this the BAD_REQUEST error's message; the field-by-field form is what a caller can act on.
  throw new Error(prettifyZodError(parsed.error), { cause: parsed.error });
}
