import { closeSync, openSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openedPath, PathGuard } from '../../../executor/path-guard.js';
import { testPolicy } from '../../support/policies.js';
import { tempDir } from '../../support/temp-dir.js';

/** Runs `body` with a read-only descriptor of `file`, closed afterwards. */
function withDescriptor<T>(file: string, body: (fd: number) => T): T {
  const fd = openSync(file, 'r');
  try {
    return body(fd);
  } finally {
    closeSync(fd);
  }
}

describe('PathGuard: checking what a descriptor reaches, not the path it was opened by', () => {
  it('denies a descriptor of a denied file whatever path was asked for, and names both', async () => {
    await using ws = await tempDir();
    const secret = path.join(ws.path, '.env');
    await writeFile(secret, 'SECRET\n');
    await writeFile(path.join(ws.path, 'x'), 'harmless\n');
    const guard = new PathGuard(
      testPolicy(ws.path, { read: { allow: ['/'], deny: [`${ws.path}/**/.env`] } }),
    );
    withDescriptor(path.join(ws.path, 'x'), (fd) =>
      expect(() => guard.checkOpenedForRead('x', fd)).not.toThrow(),
    );
    withDescriptor(secret, (fd) =>
      expect(() => guard.checkOpenedForRead('x', fd)).toThrow(`read denied by policy "test": x (${secret})`),
    );
  });

  it('follows the file where it is now: moved into a denied place after opening, it is denied', async () => {
    await using ws = await tempDir();
    await mkdir(path.join(ws.path, 'secrets'));
    await writeFile(path.join(ws.path, 'x'), 'harmless\n');
    const guard = new PathGuard(
      testPolicy(ws.path, { read: { allow: ['/'], deny: [path.join(ws.path, 'secrets')] } }),
    );
    const fd = openSync(path.join(ws.path, 'x'), 'r');
    try {
      await rename(path.join(ws.path, 'x'), path.join(ws.path, 'secrets', 'x'));
      expect(openedPath(fd)).toBe(path.join(ws.path, 'secrets', 'x'));
      expect(() => guard.checkOpenedForRead('x', fd)).toThrow(/matches the denied path/);
    } finally {
      closeSync(fd);
    }
  });

  it('holds a write descriptor to the write roots and protected paths, and refuses kernel interfaces', async () => {
    await using ws = await tempDir();
    await using elsewhere = await tempDir();
    await mkdir(path.join(ws.path, '.git'));
    await writeFile(path.join(ws.path, '.git', 'config'), '');
    await writeFile(path.join(elsewhere.path, 'f'), '');
    const guard = new PathGuard(testPolicy(ws.path, { protected: [path.join(ws.path, '.git')] }));
    withDescriptor(path.join(elsewhere.path, 'f'), (fd) =>
      expect(() => guard.checkOpenedForWrite('f', fd)).toThrow(/outside the writable paths/),
    );
    withDescriptor(path.join(ws.path, '.git', 'config'), (fd) =>
      expect(() => guard.checkOpenedForWrite('config', fd)).toThrow(/is protected/),
    );
    withDescriptor('/proc/self/status', (fd) =>
      expect(() => guard.checkOpenedForRead('status', fd)).toThrow(/kernel interface/),
    );
  });
});
