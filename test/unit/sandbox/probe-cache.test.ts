import { chmod, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findOnPath,
  probeCached,
  probeCacheFile,
  probeKey,
  rememberProbe,
} from '../../../harness/sandbox/probe-cache.js';
import { tempDir } from '../../support/temp-dir.js';

describe('sandbox probe cache', () => {
  it('remembers a probe for one key and forgets it when the bwrap binary changes', async () => {
    await using dir = await tempDir();
    const bwrap = path.join(dir.path, 'bwrap');
    await writeFile(bwrap, '#!/bin/sh\n');
    await chmod(bwrap, 0o755);
    expect(findOnPath('bwrap', `relative:${dir.path}`)).toBe(bwrap);
    const file = probeCacheFile({ XDG_CACHE_HOME: path.join(dir.path, 'cache') });
    expect(file).toBe(path.join(dir.path, 'cache', 'skate', 'sandbox-probe.json'));

    const key = probeKey(bwrap);
    expect(await probeCached(file, key)).toBe(false);
    await rememberProbe(file, key);
    expect(await probeCached(file, key)).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // An upgraded package: a different binary at the same path.
    await writeFile(bwrap, '#!/bin/sh\n# 0.9\n');
    const upgraded = probeKey(bwrap);
    expect(upgraded).not.toBe(key);
    expect(await probeCached(file, upgraded)).toBe(false);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ key });
  });

  it('treats an unreadable or corrupt cache as no cache', async () => {
    await using dir = await tempDir();
    const file = path.join(dir.path, 'sandbox-probe.json');
    await writeFile(file, '{not json');
    expect(await probeCached(file, 'k')).toBe(false);
    expect(await probeCached(path.join(dir.path, 'missing.json'), 'k')).toBe(false);
  });
});
