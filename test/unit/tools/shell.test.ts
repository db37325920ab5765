import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { shellTool } from '../../../executor/tools/shell.js';
import type { OutputLine } from '../../../shared/tool.js';
import { testPolicy } from '../../support/policies.js';
import { pidsWithMarker as processesWith } from '../../support/processes.js';
import { runTool } from '../../support/run-tool.js';
import { tempDir } from '../../support/temp-dir.js';

const markers: string[] = [];
function newMarker(): string {
  const marker = `skate-shell-${randomBytes(6).toString('hex')}`;
  markers.push(marker);
  return marker;
}

afterEach(async () => {
  for (const marker of markers.splice(0)) {
    for (const pid of await processesWith(marker)) process.kill(pid, 'SIGKILL');
  }
});

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('shell', () => {
  it('returns output with the exit code and a command display', async () => {
    await using dir = await tempDir();
    const result = await runTool(shellTool, testPolicy(dir.path), {
      command: 'echo hi; echo oops >&2; exit 2',
    });
    expect(result).toMatchObject({ isError: true, code: 'failed', output: 'hi\noops\n[exit code 2]' });
    expect(result.display).toMatchObject({
      type: 'command',
      command: 'echo hi; echo oops >&2; exit 2',
      exitCode: 2,
      signal: null,
      timedOut: false,
      truncated: false,
    });
    const ok = await runTool(shellTool, testPolicy(dir.path), { command: 'printf done' });
    expect(ok).toMatchObject({ isError: false, output: 'done\n[exit code 0]' });
    expect(ok.code).toBeUndefined();
  });

  it('runs in the workspace by default and in a readable cwd when given', async () => {
    await using dir = await tempDir();
    await mkdir(path.join(dir.path, 'sub'));
    const policy = testPolicy(dir.path);
    expect((await runTool(shellTool, policy, { command: 'pwd' })).output).toBe(`${dir.path}\n[exit code 0]`);
    expect((await runTool(shellTool, policy, { command: 'pwd', cwd: 'sub' })).output).toBe(
      `${path.join(dir.path, 'sub')}\n[exit code 0]`,
    );
  });

  it('refuses a cwd that is missing, not a directory or denied', async () => {
    await using dir = await tempDir();
    await mkdir(path.join(dir.path, 'secret'));
    await writeFile(path.join(dir.path, 'file.txt'), 'x');
    const policy = testPolicy(dir.path, { read: { allow: ['/'], deny: [path.join(dir.path, 'secret')] } });
    expect(await runTool(shellTool, policy, { command: 'true', cwd: 'nope' })).toMatchObject({
      code: 'not_found',
    });
    expect(await runTool(shellTool, policy, { command: 'true', cwd: 'file.txt' })).toMatchObject({
      code: 'invalid_input',
      output: expect.stringContaining('not a directory'),
    });
    expect(await runTool(shellTool, policy, { command: 'true', cwd: 'secret' })).toMatchObject({
      code: 'denied',
    });
  });

  it('streams lines before the command ends', async () => {
    await using dir = await tempDir();
    const gate = path.join(dir.path, 'gate');
    const lines: OutputLine[] = [];
    const call = runTool(
      shellTool,
      testPolicy(dir.path),
      { command: `echo waiting; echo note >&2; while [ ! -e ${gate} ]; do sleep 0.02; done; echo through` },
      { lines },
    );
    await until(() => lines.length >= 2, 'the first lines');
    await writeFile(gate, '');
    const result = await call;
    expect(result.output).toBe('waiting\nnote\nthrough\n[exit code 0]');
    expect(lines.map((line) => `${line.stream}:${line.text}`)).toEqual([
      'stdout:waiting',
      'stderr:note',
      'stdout:through',
    ]);
  });

  it('times out, kills the whole tree and says so', async () => {
    await using dir = await tempDir();
    const marker = newMarker();
    const result = await runTool(shellTool, testPolicy(dir.path), {
      command: `(exec -a ${marker} sleep 300) & (exec -a ${marker} sleep 300) & setsid -f bash -c 'exec -a ${marker} sleep 300'; echo up; wait`,
      timeout_seconds: 0.5,
    });
    expect(result).toMatchObject({
      isError: true,
      code: 'timeout',
      output: 'up\n[killed: timed out after 0.5 s]',
    });
    expect(result.display).toMatchObject({ type: 'command', timedOut: true });
    expect(await processesWith(marker)).toEqual([]);
  });

  it("never runs longer than the policy's command timeout", async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    policy.limits.commandTimeoutSeconds = 0.5;
    const started = performance.now();
    const result = await runTool(shellTool, policy, { command: 'sleep 30', timeout_seconds: 100 });
    expect(result).toMatchObject({ code: 'timeout', output: '[killed: timed out after 0.5 s]' });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('is cancelled through the signal and leaves nothing running', async () => {
    await using dir = await tempDir();
    const marker = newMarker();
    const controller = new AbortController();
    const lines: OutputLine[] = [];
    const call = runTool(
      shellTool,
      testPolicy(dir.path),
      { command: `(exec -a ${marker} sleep 300) & echo up; wait` },
      { signal: controller.signal, lines },
    );
    await until(() => lines.length > 0, 'the command to start');
    controller.abort();
    const result = await call;
    expect(result).toMatchObject({ isError: true, code: 'cancelled', output: 'up\n[killed: cancelled]' });
    expect(await processesWith(marker)).toEqual([]);
  });

  it('keeps an output flood within the output limit, status line included', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    const result = await runTool(shellTool, policy, { command: 'yes | head -c 50000000' });
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(policy.limits.outputBytes);
    expect(result.output).toMatch(/\n\[\.\.\. \d+ bytes of output dropped here \.\.\.\]\ny\n/);
    expect(result.output.endsWith('y\n[exit code 0]')).toBe(true);
    expect(result.display).toMatchObject({ truncated: true, exitCode: 0 });
  });

  it('tells the model when background processes holding the output were stopped', async () => {
    await using dir = await tempDir();
    const marker = newMarker();
    const result = await runTool(shellTool, testPolicy(dir.path), {
      command: `(exec -a ${marker} sleep 300) & echo started`,
    });
    expect(result.output).toBe(
      'started\n[exit code 0]\n[background processes still holding the output were stopped]',
    );
    expect(await processesWith(marker)).toEqual([]);
  });
});
