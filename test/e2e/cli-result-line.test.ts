import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { RunResult } from '../../shared/run-result.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually, isAlive } from '../support/processes.js';
import { type TempDir, tempDir } from '../support/temp-dir.js';

const KEY = 'sk-ant-test-key';

interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** `skate -p … --output-format stream-json` as a subprocess a test can signal. */
function startCli(args: string[], url: string, extraEnv: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, [distPath('cli', 'skate.js'), ...args], {
    env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: url, ...extraEnv },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin?.end();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

function lastLine(stdout: string): RunResult {
  const lines = stdout.trim().split('\n');
  return RunResult.parse(JSON.parse(lines.at(-1) ?? ''));
}

const sleepCall = (id: string, seconds = 60): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name: 'shell', input: { command: `sleep ${seconds}` } }],
  stopReason: 'tool_use',
  usage: { input_tokens: 10, output_tokens: 5 },
});

describe('the final result line always comes', () => {
  it('on SIGTERM, for twelve runs at once: each ends with one result line, exit 143, nothing left running', async () => {
    const dirs: TempDir[] = [];
    await using api = await fakeMessagesApi(Array.from({ length: 12 }, (_, i) => sleepCall(`toolu_${i}`)));
    try {
      for (let i = 0; i < 12; i++) dirs.push(await tempDir());
      const runs = dirs.map((dir) =>
        startCli(['-p', 'wait a minute', '--output-format', 'stream-json', '--workspace', dir.path], api.url),
      );
      // Each run is inside its shell call (the command started) before it is told to stop.
      const inside = await eventually(
        () => runs.every((run) => run.stdout().includes('"tool_call_start"')),
        60_000,
      );
      expect(inside, runs.map((run) => run.stderr()).join('\n')).toBe(true);
      const below = (await Promise.all(runs.map((run) => processDescendants(run.child.pid!)))).flat();
      for (const run of runs) run.child.kill('SIGTERM');
      const codes = await Promise.all(runs.map((run) => run.exited));
      expect(codes).toEqual(Array(12).fill(143));
      for (const run of runs) {
        const results = run
          .stdout()
          .trim()
          .split('\n')
          .filter((line) => JSON.parse(line).type === 'result');
        expect(results).toHaveLength(1);
        expect(lastLine(run.stdout())).toMatchObject({
          type: 'result',
          status: 'cancelled',
          subtype: 'error_during_execution',
          is_error: true,
          errorCode: 'terminated',
        });
      }
      // The executors and their sleeping commands went with the runs (torn down after the CLI's exit:
      // twelve sandboxes at once on a loaded 2-core machine take more than the default 5 s).
      expect(
        await eventually(
          async () => (await Promise.all(below.map(isAlive))).every((alive) => !alive),
          30_000,
        ),
      ).toBe(true);
    } finally {
      await Promise.all(dirs.map((dir) => dir[Symbol.asyncDispose]()));
    }
  }, 120_000);

  it('on a crash inside the harness: a result line with errorCode crash, exit 1, the executor gone', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([sleepCall('toolu_crash')]);
    // A throw nobody catches, planted in the CLI's own process (not its executor) and set off on cue.
    const preload = path.join(dir.path, 'crash-on-signal.cjs');
    await writeFile(
      preload,
      `if (process.argv[1] && process.argv[1].endsWith('skate.js')) process.on('SIGUSR2', () => setImmediate(() => { throw new Error('planted crash'); }));\n`,
    );
    const workspace = path.join(dir.path, 'ws');
    await mkdir(workspace);
    const run = startCli(
      ['-p', 'wait', '--output-format', 'stream-json', '--workspace', workspace],
      api.url,
      {
        NODE_OPTIONS: `--require ${preload}`,
      },
    );
    expect(await eventually(() => run.stdout().includes('"tool_call_start"'), 30_000), run.stderr()).toBe(
      true,
    );
    const below = await processDescendants(run.child.pid!);
    run.child.kill('SIGUSR2');
    expect(await run.exited).toBe(1);
    expect(lastLine(run.stdout())).toMatchObject({
      type: 'result',
      status: 'error',
      is_error: true,
      errorCode: 'crash',
      error: expect.stringContaining('planted crash'),
    });
    expect(
      await eventually(async () => (await Promise.all(below.map(isAlive))).every((alive) => !alive), 30_000),
    ).toBe(true);
  }, 120_000);

  it('when the executor dies mid-call: the call fails as a result, the run goes on and ends with its result line', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      // Long enough to be killed inside however slowly a loaded machine finds it (an 8 s sleep could
      // end on its own first and pass as a success); the kill ends it at once when the test holds.
      sleepCall('toolu_sleep', 60),
      { type: 'message', blocks: [{ type: 'text', text: 'The command died; stopping.' }] },
    ]);
    const run = startCli(['-p', 'wait', '--output-format', 'stream-json', '--workspace', dir.path], api.url);
    expect(await eventually(() => run.stdout().includes('"tool_call_start"'), 30_000)).toBe(true);
    // The command is running in the sandbox before its executor is killed.
    expect(
      await eventually(
        async () =>
          (await Promise.all((await processDescendants(run.child.pid!)).map(commandLine))).some((line) =>
            line.startsWith('sleep'),
          ),
        20_000,
      ),
    ).toBe(true);
    // The executor: the descendants running the executor bundle (bwrap's argv names it too).
    const executors: number[] = [];
    for (const pid of await processDescendants(run.child.pid!)) {
      if ((await commandLine(pid)).includes('executor.js')) executors.push(pid);
    }
    expect(executors.length).toBeGreaterThan(0);
    for (const pid of executors) {
      // Killing bwrap takes its children with it: one may be gone (reaped) before its own kill.
      try {
        process.kill(pid, 'SIGKILL');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    }
    expect(await run.exited).toBe(0);
    const result = lastLine(run.stdout());
    expect(result).toMatchObject({ status: 'complete', result: 'The command died; stopping.' });
    const failed = run
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"tool_call_result"'))
      .map((line) => JSON.parse(line));
    expect(failed[0]).toMatchObject({ id: 'toolu_sleep', isError: true });
  }, 120_000);
});
