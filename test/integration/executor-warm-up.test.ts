import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { testPolicy } from '../support/policies.js';
import { rawExecutor } from '../support/raw-executor.js';
import { tempDir } from '../support/temp-dir.js';

/** The wrapper's log once it has `lines` lines, or what it has after `ms`. */
async function logOf(file: string, lines: number, ms = 5_000): Promise<string[]> {
  const until = Date.now() + ms;
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const found = text.split('\n').filter(Boolean);
    if (found.length >= lines || Date.now() > until) return found;
    await sleep(20);
  }
}

describe('an executor process warming up', () => {
  it('runs one no-op under its command wrapper once listTools is answered, and not before', async () => {
    await using dir = await tempDir();
    const log = path.join(dir.path, 'wrapper.log');
    // Records what it is asked to run, then runs it, as skate-confine would.
    const wrapper = path.join(dir.path, 'wrapper.sh');
    await writeFile(wrapper, `#!/bin/sh\necho "$@" >> '${log}'\nexec "$@"\n`);
    await chmod(wrapper, 0o755);
    await using executor = await rawExecutor(testPolicy(dir.path), undefined, [wrapper]);

    executor.request(1, 'query', 'health');
    expect(await executor.next()).toMatchObject({ id: 1 });
    await sleep(200);
    expect(await logOf(log, 1, 0)).toEqual([]);

    executor.request(2, 'query', 'listTools');
    expect(await executor.next()).toMatchObject({ id: 2 });
    expect(await logOf(log, 1)).toEqual([expect.stringMatching(/^\/bin\/(ba)?sh -c echo$/)]);

    // Once only: a second listing starts nothing more, and the first command runs as ever.
    executor.request(3, 'query', 'listTools');
    executor.request(4, 'mutation', 'callTool', {
      callId: 'c',
      name: 'shell',
      input: { command: 'echo hi' },
    });
    const answers = [await executor.next(), await executor.next()];
    expect(answers.map((frame) => frame.id).sort()).toEqual([3, 4]);
    expect(await logOf(log, 2)).toEqual([
      expect.stringMatching(/ -c echo$/),
      expect.stringMatching(/ -c echo hi$/),
    ]);
  });

  it('runs nothing when shut down right after listing its tools, as a sub-agent done at once is', async () => {
    await using dir = await tempDir();
    const log = path.join(dir.path, 'wrapper.log');
    const wrapper = path.join(dir.path, 'wrapper.sh');
    await writeFile(wrapper, `#!/bin/sh\necho "$@" >> '${log}'\nexec "$@"\n`);
    await chmod(wrapper, 0o755);
    await using executor = await rawExecutor(testPolicy(dir.path), undefined, [wrapper]);
    executor.request(1, 'query', 'listTools');
    expect(await executor.next()).toMatchObject({ id: 1 });
    // Well inside the quiet spell it waits for (150 ms), where it used to spawn at once.
    await sleep(30);
    expect(await logOf(log, 1, 0)).toEqual([]);
    const exited = new Promise((resolve) => executor.child.once('exit', resolve));
    executor.request(2, 'mutation', 'shutdown');
    await exited;
    expect(await logOf(log, 1, 0)).toEqual([]);
  });
});
