import { inertText } from './inert-text.js';

/** Nesting past this is shown as `…`: a renderer never recurses as deep as a hostile value goes. */
const MAX_DEPTH = 64;

/**
 * A value (an engine event, a tool call's arguments, an overlay) with every string in it, object
 * keys included, passed through `inertText`. This is how untrusted data enters a terminal
 * renderer's model: whole, so that a field added later cannot be forgotten. Parts with nothing to
 * replace are returned as they are (no copy), so a clean event costs a walk and no allocation.
 * Only plain objects and arrays are entered; other objects (a Set, a Date) are left as they are.
 */
export function inertValue<T>(value: T): T {
  return walk(value, 0) as T;
}

function walk(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return inertText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const safe = walk(item, depth + 1);
      if (safe !== item) {
        copy ??= value.slice();
        copy[i] = safe;
      }
    }
    return copy ?? value;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  // for…in: no array of keys per object (a plain object has nothing enumerable but its own).
  for (const key in record) {
    const item = record[key];
    const safe = walk(item, depth + 1);
    const safeKey = inertText(key);
    if (safe === item && safeKey === key) continue;
    if (!copy) copy = { ...record };
    if (safeKey !== key) delete copy[key];
    // Defined, not assigned: a key `__proto__` stays a key.
    Object.defineProperty(copy, safeKey, {
      value: safe,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy ?? value;
}
