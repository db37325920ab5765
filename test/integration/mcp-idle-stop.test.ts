import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpServerHandle } from '../../harness/mcp/mcp-server-handle.js';
import { projectRoot } from '../../harness/project-paths.js';
import { testPolicy } from '../support/policies.js';
import { eventually, isAlive } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const TEST_SERVER = path.join(projectRoot(), 'test', 'fixtures', 'mcp', 'test-server.mjs');
const IDLE_MS = 600;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server's executor stops once no call has run for `idleMs`, counted from the last call's end. */
describe('an MCP server stopped when idle', () => {
  it('lives while calls keep coming, stops idleMs after the last, and starts again on the next call', async () => {
    await using ws = await tempDir('mcp-idle-');
    const policy = testPolicy(ws.path);
    const handle = new McpServerHandle({
      name: 'idle',
      config: { command: process.execPath, args: [TEST_SERVER] },
      workspace: ws.path,
      sandbox: 'best-effort',
      agentPolicy: async () => policy,
      idleMs: IDLE_MS,
      startTimeoutMs: 20_000,
    });
    const signal = new AbortController().signal;
    try {
      await handle.call('echo', { text: 'first' }, signal);
      const first = handle.executorPid()!;
      // A call every third of idleMs, for twice idleMs: the timer set at the first call fires, finds
      // a recent call, and waits again.
      for (let i = 0; i < 6; i++) {
        await sleep(IDLE_MS / 3);
        expect((await handle.call('echo', { text: `n${i}` }, signal)).output).toContain(`n${i}`);
      }
      expect(handle.executorPid()).toBe(first);
      expect(await isAlive(first)).toBe(true);
      const lastCall = performance.now();
      expect(await eventually(async () => !(await isAlive(first)), 10_000)).toBe(true);
      expect(performance.now() - lastCall).toBeGreaterThanOrEqual(IDLE_MS - 50);
      expect(handle.executorPid()).toBeUndefined();
      expect(handle.state()).toMatchObject({ status: 'known' });
      // The next call starts a new one.
      expect((await handle.call('echo', { text: 'again' }, signal)).output).toContain('again');
      expect(handle.executorPid()).not.toBe(first);
    } finally {
      await handle.stop();
    }
  }, 60_000);
});
