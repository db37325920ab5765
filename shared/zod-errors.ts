import * as z from 'zod';

/**
 * zod's field-by-field wording of a refusal. On its own so code that loads zod only when an
 * input is refused can import it lazily: `import('zod')` itself would bundle all of zod
 * (750 KB) where the namespace import tree-shakes to 200 KB.
 */
export function prettifyZodError(error: z.ZodError): string {
  return z.prettifyError(error);
}
