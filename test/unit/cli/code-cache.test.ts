import { existsSync } from 'node:fs';
import { readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheProfile, codeCacheFile, compileCached } from '../../../harness/cli/code-cache.js';
import { tempDir } from '../../support/temp-dir.js';

const BUNDLE =
  '(function (exports, require, module, __filename, __dirname) {"use strict";' +
  'module.exports = { twice: (n) => n * 2, file: __filename, sep: require("node:path").sep };\n})';

describe('cacheProfile', () => {
  it('keeps one cache per kind of run', () => {
    expect(cacheProfile(['-p', 'task'])).toBe('print');
    expect(cacheProfile(['fix the bug', '--print'])).toBe('print');
    expect(cacheProfile(['serve', '--port', '0'])).toBe('serve');
    expect(cacheProfile(['acp'])).toBe('acp');
    expect(cacheProfile(['--version'])).toBe('info');
    expect(cacheProfile(['help'])).toBe('info');
    expect(cacheProfile([])).toBe('agent');
    expect(cacheProfile(['-c'])).toBe('agent');
    // An unknown word makes no cache of its own.
    expect(cacheProfile(['../../etc'])).toBe('agent');
  });
});

describe('compileCached', () => {
  it('runs the file as CommonJS, saves its cache atomically, and uses it or refuses a damaged one', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'bundle.js');
    await writeFile(file, BUNDLE);
    const cacheFile = codeCacheFile(path.join(dir.path, 'code'), 'abc123', 'print');
    expect(path.basename(cacheFile)).toBe(`cli-abc123-print-${process.version}-${process.arch}.v8`);

    const first = compileCached(file, cacheFile);
    expect(first.cache).toBe('miss');
    const exports = first.run(createRequire(file)) as { twice(n: number): number; file: string; sep: string };
    expect(exports.twice(21)).toBe(42);
    expect(exports.file).toBe(file);
    expect(exports.sep).toBe(path.sep);
    first.save();
    expect(await readdir(path.dirname(cacheFile))).toEqual([path.basename(cacheFile)]);

    // V8 keeps what this process compiled, by source and file name: a copy elsewhere stands for
    // the next process, which has only the cache file.
    const copy = async (name: string): Promise<string> => {
      await writeFile(path.join(dir.path, name), BUNDLE);
      return path.join(dir.path, name);
    };
    const second = compileCached(await copy('second.js'), cacheFile);
    expect(second.cache).toBe('hit');
    expect((second.run(createRequire(file)) as { twice(n: number): number }).twice(2)).toBe(4);

    await writeFile(cacheFile, 'damaged');
    const third = compileCached(await copy('third.js'), cacheFile);
    expect(third.cache).toBe('rejected');
    third.save();
    expect(compileCached(await copy('fourth.js'), cacheFile).cache).toBe('hit');
  });

  it("drops other builds' caches a day old when it saves, and keeps this build's", async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'bundle.js');
    await writeFile(file, BUNDLE);
    const code = path.join(dir.path, 'code');
    const cacheFile = codeCacheFile(code, 'new', 'print');
    const old = codeCacheFile(code, 'old', 'print');
    const recent = codeCacheFile(code, 'other', 'print');
    const sibling = codeCacheFile(code, 'new', 'serve');
    const unrelated = path.join(code, 'notes.txt');
    compileCached(file, old).save();
    for (const other of [recent, sibling]) await writeFile(other, 'x');
    await writeFile(unrelated, 'x');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    for (const aged of [old, sibling, unrelated]) await utimes(aged, twoDaysAgo, twoDaysAgo);

    compileCached(file, cacheFile).save();
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(sibling)).toBe(true);
    expect(await readFile(unrelated, 'utf8')).toBe('x');
    expect(existsSync(cacheFile)).toBe(true);
  });
});
