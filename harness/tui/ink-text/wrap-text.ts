import cliTruncate from 'cli-truncate';
import wrapAnsi from 'wrap-ansi';
import { BoundedCache, INK_TEXT_CACHE_GENERATION } from './bounded-cache.js';

const cache = new BoundedCache<string>(INK_TEXT_CACHE_GENERATION);

/** Entries held now (tests). */
export function wrapTextCacheSize(): number {
  return cache.size;
}

/**
 * Ink's `build/wrap-text.js` (6.8) with a bounded cache, in its place in the skate bundle (see
 * measure-text.ts). Same results: `wrap` wraps hard without trimming, `truncate-*` cuts at that end.
 * A default export, as Ink imports it.
 */
export default function wrapText(text: string, maxWidth: number, wrapType: string): string {
  const key = `${text}\u0000${maxWidth}\u0000${wrapType}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let wrapped = text;
  if (wrapType === 'wrap') wrapped = wrapAnsi(text, maxWidth, { trim: false, hard: true });
  if (wrapType.startsWith('truncate')) {
    const position =
      wrapType === 'truncate-middle' ? 'middle' : wrapType === 'truncate-start' ? 'start' : 'end';
    wrapped = cliTruncate(text, maxWidth, { position });
  }
  cache.set(key, wrapped);
  return wrapped;
}
