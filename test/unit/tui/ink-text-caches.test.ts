import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { distPath, projectRoot } from '../../../harness/project-paths.js';
import { BoundedCache, INK_TEXT_CACHE_GENERATION } from '../../../harness/tui/ink-text/bounded-cache.js';
import measureText, { measureTextCacheSize } from '../../../harness/tui/ink-text/measure-text.js';
import wrapText, { wrapTextCacheSize } from '../../../harness/tui/ink-text/wrap-text.js';

const inkModule = async <T>(name: string): Promise<T> =>
  (
    (await import(pathToFileURL(path.join(projectRoot(), 'node_modules', 'ink', 'build', name)).href)) as {
      default: T;
    }
  ).default;

const TEXTS = [
  '',
  'plain',
  'two\nlines, the second longer',
  '\x1b[1mbold\x1b[22m and \x1b[31mred\x1b[39m',
  '表の幅 wide characters 🙂',
  'a line long enough to be wrapped and truncated at every width the tests try',
];

describe("Ink's text caches, bounded (#24: RSS over a long session)", () => {
  it("measure and wrap exactly as Ink's own modules do", async () => {
    const inkMeasure = await inkModule<(text: string) => unknown>('measure-text.js');
    const inkWrap = await inkModule<(text: string, width: number, type: string) => string>('wrap-text.js');
    for (const text of TEXTS) {
      expect(measureText(text)).toEqual(inkMeasure(text));
      for (const width of [1, 5, 20, 200]) {
        for (const type of ['wrap', 'truncate', 'truncate-end', 'truncate-middle', 'truncate-start', 'end']) {
          expect(wrapText(text, width, type), `${text} ${width} ${type}`).toBe(inkWrap(text, width, type));
        }
      }
    }
  });

  it('hold at most two generations of texts however many were drawn', () => {
    for (let i = 0; i < 5 * INK_TEXT_CACHE_GENERATION; i++) {
      measureText(`row ${i} of a reply that streams`);
      wrapText(`row ${i} of a reply that streams`, 80, 'truncate-end');
    }
    expect(measureTextCacheSize()).toBeLessThanOrEqual(2 * INK_TEXT_CACHE_GENERATION);
    expect(wrapTextCacheSize()).toBeLessThanOrEqual(2 * INK_TEXT_CACHE_GENERATION);
  });

  it('keep what is still drawn: a hit in the old generation moves forward', () => {
    const cache = new BoundedCache<number>(2);
    cache.set('status bar', 1);
    cache.set('a', 2);
    cache.set('b', 3); // 'status bar' and 'a' are the old generation now
    expect(cache.get('status bar')).toBe(1); // moved forward, with 'b'
    cache.set('c', 4); // the current one was full: 'status bar' and 'b' become the old one, 'a' goes
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('status bar')).toBe(1);
    expect(cache.size).toBeLessThanOrEqual(4);
  });

  it('are the ones in the skate bundle, in place of Ink’s', async () => {
    const bundle = await readFile(distPath('cli', 'tui-vendor.mjs'), 'utf8');
    expect(bundle).toContain('dist/harness/tui/ink-text/measure-text.js');
    expect(bundle).toContain('dist/harness/tui/ink-text/wrap-text.js');
    // Ink's own wrap-text keys its never-cleared cache so.
    expect(bundle).not.toContain('text + String(maxWidth) + String(wrapType)');
  });
});
