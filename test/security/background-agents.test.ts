import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { toolCall as call, cliEnv, textReply as text } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { processDescendants } from '../support/process-descendants.js';
import { eventually, isAlive } from '../support/processes.js';

/**
 * A background sub-agent cannot outlive its parent nor do more than it (issue #25), checked on
 * the host: after the parent's session ends (SIGTERM, or SIGKILL that leaves it no time to clean
 * up), no process of the child is left and a file it would have written afterwards never appears.
 */

function startCli(args: string[], cliEnv: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [distPath('cli', 'skate.js'), ...args], {
    env: cliEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

describe('a background sub-agent cannot outlive its parent', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`${signal} on the parent: no process of the child remains, and its late write never lands`, async () => {
      await using ws = await hostDir('bg-sec-');
      await using home = await hostDir('bg-sec-home-');
      await using api = await fakeMessagesApi([
        call('s1', 'spawn_agent', { task: 'BG-LATE: write later', background: true }),
        text('waiting'),
      ]);
      // The child is a writer of the workspace: were it left running, its file would appear.
      api.enqueueFor('BG-LATE', call('c1', 'shell', { command: 'sleep 3; echo late > late.txt' }));
      const run = startCli(
        ['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path],
        cliEnv({ home: home.path, api: api.url }),
      );
      try {
        const inside = await eventually(
          () => /"agent":\["bg-1"\][^\n]*"name":"shell"/.test(run.stdout()),
          60_000,
        );
        expect(inside, run.stderr()).toBe(true);
        const below = await processDescendants(run.child.pid as number);
        expect(below.length).toBeGreaterThan(0);
        run.child.kill(signal);
        await run.exited;
        const gone = await eventually(
          async () => (await Promise.all(below.map(isAlive))).every((alive) => !alive),
          10_000,
        );
        expect(gone, `left running: ${below.join(' ')}`).toBe(true);
        // Past the moment it would have written.
        await sleep(4_000);
        expect(existsSync(path.join(ws.path, 'late.txt'))).toBe(false);
      } finally {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      }
    }, 90_000);
  }

  it('a read-only background child cannot write, whatever it tries', async () => {
    await using ws = await hostDir('bg-sec-ro-');
    await using home = await hostDir('bg-sec-home-');
    await using api = await fakeMessagesApi([
      call('s1', 'spawn_agent', { task: 'BG-RO: try to write', background: true, read_only: true }),
      text('waiting'),
      text('done'),
    ]);
    api.enqueueFor(
      'BG-RO',
      call('c1', 'shell', { command: 'echo x > ro.txt; echo y > ../outside-bg.txt' }),
      call('c2', 'complete_task', { status: 'failed', summary: 'could not write' }),
    );
    const run = startCli(
      ['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path],
      cliEnv({ home: home.path, api: api.url }),
    );
    expect(await run.exited, run.stderr()).toBe(0);
    expect(existsSync(path.join(ws.path, 'ro.txt'))).toBe(false);
    expect(existsSync(path.join(path.dirname(ws.path), 'outside-bg.txt'))).toBe(false);
    expect(run.stdout()).toContain('"type":"dispatch_end"');
  }, 90_000);
});
