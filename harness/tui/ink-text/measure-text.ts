import stringWidth from 'string-width';
import { BoundedCache, INK_TEXT_CACHE_GENERATION } from './bounded-cache.js';

interface Dimensions {
  width: number;
  height: number;
}

const cache = new BoundedCache<Dimensions>(INK_TEXT_CACHE_GENERATION);

/** Entries held now (tests). */
export function measureTextCacheSize(): number {
  return cache.size;
}

/**
 * Ink's `build/measure-text.js` (6.8) with a bounded cache: the skate bundle puts this module in
 * its place (scripts/bundle.mjs), because Ink's keeps every text it ever measured (#24: RSS over a
 * long session). Same results: the widest line's width (widest-line) and the number of lines.
 * A default export, as Ink imports it.
 */
export default function measureText(text: string): Dimensions {
  if (text.length === 0) return { width: 0, height: 0 };
  const cached = cache.get(text);
  if (cached) return cached;
  const lines = text.split('\n');
  let width = 0;
  for (const line of lines) width = Math.max(width, stringWidth(line));
  const dimensions = { width, height: lines.length };
  cache.set(text, dimensions);
  return dimensions;
}
