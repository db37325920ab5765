import superjson from 'superjson';

type Encoded = Parameters<typeof superjson.deserialize>[0];

/**
 * superjson with a shortcut for plain JSON values, which is almost every frame: superjson encodes
 * them as `{ json: value }` with no `meta`, so that is what this returns without walking the value
 * through superjson's annotators (~5 µs for a small read_file result), and a payload without
 * `meta` is returned as it came instead of being deep-copied. Anything else (undefined, Dates,
 * NaN, -0, class instances...) goes through superjson itself. The bytes on the wire are the same
 * as superjson's, so a stock tRPC client with superjson still talks to an executor, except that
 * one object reached twice in a value arrives as two equal copies, not one shared object.
 */
export const superjsonFast = {
  serialize(value: unknown): Encoded {
    return isPlainJson(value, 0) ? { json: value as Encoded['json'] } : superjson.serialize(value);
  },
  deserialize<T = unknown>(payload: Encoded): T {
    return payload.meta === undefined ? (payload.json as T) : superjson.deserialize<T>(payload);
  },
};

/** Deeper than this, superjson decides (and a cycle cannot recurse forever). */
const MAX_DEPTH = 64;

function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object': {
      if (value === null) return true;
      if (depth === MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isPlainJson(value[i], depth + 1)) return false;
        return true;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) {
        if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}
