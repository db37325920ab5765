import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readdirSync, readlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRipgrep, runRipgrep } from '../../../executor/fs/ripgrep.js';
import { confineWrapper } from '../../../harness/sandbox/executor-launch.js';
import { tempDir } from '../../support/temp-dir.js';

const rg = findRipgrep();

/** Processes whose working directory is `dir`: what a search started there left running. */
function runningIn(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) === dir) pids.push(Number(name));
    } catch {}
  }
  return pids;
}

/**
 * A FIFO nobody writes: reading it blocks until it is released, which happens after `ms` at the
 * latest, so a stop that failed to kill rg fails the test instead of leaving rg waiting.
 */
function blockingFile(dir: string, ms = 10_000): Disposable & { readonly released: boolean } {
  const fifo = path.join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  let released = false;
  const release = (): void => {
    released = true;
    try {
      // Opened and closed by a writer, the FIFO reads as ended.
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {}
  };
  const timer = setTimeout(release, ms);
  return {
    get released() {
      return released;
    },
    [Symbol.dispose]() {
      clearTimeout(timer);
      release();
    },
  };
}

describe.skipIf(!rg)('runRipgrep', () => {
  it.each([
    ['bare', [] as string[]],
    ['under skate-confine', confineWrapper()],
  ])('stopped at a cap, leaves nothing running (%s)', async (_, wrapper) => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'match.txt'), 'needle\n');
    // rg is still searching (reading the FIFO) when it is stopped. Two threads, so the other
    // file is searched (and its name sent) meanwhile.
    using fifo = blockingFile(dir.path);
    const records: string[] = [];
    const exit = await runRipgrep({
      binary: rg!,
      wrapper,
      cwd: dir.path,
      args: ['--threads=2', '--files-with-matches', '--regexp', 'needle', '--', 'match.txt', 'fifo'],
      signal: new AbortController().signal,
      separator: 10,
      onRecord: (record) => {
        records.push(record);
        return false;
      },
    });
    expect(fifo.released).toBe(false);
    expect(records).toEqual(['match.txt']);
    expect(exit).toMatchObject({ stopped: true, code: null });
    expect(runningIn(dir.path)).toEqual([]);
  });

  it('a cancelled call stops it too', async () => {
    await using dir = await tempDir();
    using fifo = blockingFile(dir.path);
    const controller = new AbortController();
    const search = runRipgrep({
      binary: rg!,
      wrapper: confineWrapper(),
      cwd: dir.path,
      args: ['--regexp', 'needle', '--', 'fifo'],
      signal: controller.signal,
      separator: 10,
      onRecord: () => true,
    });
    setTimeout(() => controller.abort(), 100);
    expect(await search).toMatchObject({ stopped: true, code: null });
    expect(fifo.released).toBe(false);
    expect(runningIn(dir.path)).toEqual([]);
  });
});
