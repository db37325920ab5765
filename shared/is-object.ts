/** A JSON object (not null, not an array), for the hand-written checks that stand in for zod on hot paths. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
