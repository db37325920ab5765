import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BoundedOutput } from '../../../executor/process/bounded-output.js';
import { type RunCommandOptions, runCommand } from '../../../executor/process/run-command.js';
import { TextLines } from '../../../executor/process/text-lines.js';
import { eventually, pidsWithMarker as processesWith } from '../../support/processes.js';
import { tempDir } from '../../support/temp-dir.js';

/** A unique name to give processes (`exec -a`), so the test can find them on the host afterwards. */
const markers: string[] = [];
function newMarker(): string {
  const marker = `skate-rc-${randomBytes(6).toString('hex')}`;
  markers.push(marker);
  return marker;
}

afterEach(async () => {
  // Whatever a failed test left running goes now.
  for (const marker of markers.splice(0)) {
    for (const pid of await processesWith(marker)) process.kill(pid, 'SIGKILL');
  }
});

function options(cwd: string, overrides: Partial<RunCommandOptions> = {}): RunCommandOptions {
  return {
    argv: ['/bin/bash', '-c', 'true'],
    cwd,
    env: { PATH: process.env.PATH },
    timeoutMs: 10_000,
    outputCapBytes: 64 * 1024,
    ...overrides,
  };
}

const bash = (script: string): RunCommandOptions['argv'] => ['/bin/bash', '-c', script];

describe('runCommand', () => {
  it('captures both streams in order, reports the exit code and never throws for a failure', async () => {
    await using dir = await tempDir();
    const lines: string[] = [];
    const result = await runCommand(
      options(dir.path, {
        argv: bash('echo out; sleep 0.05; echo err >&2; sleep 0.05; echo out2; exit 7'),
        onLine: (stream, text) => lines.push(`${stream}:${text}`),
      }),
    );
    expect(result).toMatchObject({
      exitCode: 7,
      signal: null,
      timedOut: false,
      cancelled: false,
      output: 'out\nerr\nout2\n',
      truncated: false,
      killedBackground: false,
    });
    expect(lines).toEqual(['stdout:out', 'stderr:err', 'stdout:out2']);
  });

  it('reports a death by signal', async () => {
    await using dir = await tempDir();
    const result = await runCommand(options(dir.path, { argv: bash('echo before; kill -KILL $$') }));
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL', output: 'before\n' });
  });

  it('passes exactly the given environment, runs in cwd and closes stdin', async () => {
    await using dir = await tempDir();
    process.env.SKATE_TEST_LEAK = 'leaked';
    try {
      const result = await runCommand(
        options(dir.path, {
          argv: bash('echo "$FOO|${SKATE_TEST_LEAK:-unset}|$PWD"; cat; echo "cat:$?"'),
          env: { PATH: process.env.PATH, FOO: 'bar' },
        }),
      );
      expect(result.output).toBe(`bar|unset|${dir.path}\ncat:0\n`);
    } finally {
      delete process.env.SKATE_TEST_LEAK;
    }
  });

  it('streams lines while the command still runs', async () => {
    await using dir = await tempDir();
    const gate = path.join(dir.path, 'gate');
    const seen: string[] = [];
    // The command cannot finish until the test has seen its first line and opened the gate.
    const result = await runCommand(
      options(dir.path, {
        argv: bash(`echo waiting; while [ ! -e ${gate} ]; do sleep 0.02; done; echo through`),
        onLine: (_stream, text) => {
          seen.push(text);
          if (text === 'waiting') void writeFile(gate, '');
        },
      }),
    );
    expect(result.exitCode).toBe(0);
    expect(seen).toEqual(['waiting', 'through']);
  });

  it('handles partial lines, CRLF and very long lines', async () => {
    await using dir = await tempDir();
    const lines: string[] = [];
    const result = await runCommand(
      options(dir.path, {
        argv: bash(
          "printf 'one\\r\\ntwo'; sleep 0.05; printf ' more\\n'; head -c 20000 /dev/zero | tr '\\0' x; echo; printf tail",
        ),
        onLine: (_stream, text) => lines.push(text),
      }),
    );
    expect(lines).toEqual(['one', 'two more', 'x'.repeat(8192), 'x'.repeat(8192), 'x'.repeat(3616), 'tail']);
    expect(result.output).toBe(`one\ntwo more\n${'x'.repeat(20_000)}\ntail\n`);
  });

  it('keeps a flood of output bounded, with head, tail and a notice of what was dropped', async () => {
    await using dir = await tempDir();
    const cap = 64 * 1024;
    let lineCount = 0;
    const result = await runCommand(
      options(dir.path, {
        argv: bash('echo FIRST; yes | head -c 50000000; echo LAST'),
        outputCapBytes: cap,
        onLine: () => lineCount++,
      }),
    );
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(cap);
    expect(result.output.startsWith('FIRST\ny\ny\n')).toBe(true);
    expect(result.output.endsWith('y\ny\nLAST\n')).toBe(true);
    const dropped = /\[\.\.\. (\d+) bytes of output dropped here \.\.\.\]/.exec(result.output);
    expect(Number(dropped?.[1])).toBeGreaterThan(49_000_000);
    expect(lineCount).toBe(25_000_002);
  });

  it('bounds a single endless line too', async () => {
    await using dir = await tempDir();
    const result = await runCommand(
      options(dir.path, { argv: bash("head -c 30000000 /dev/zero | tr '\\0' z"), outputCapBytes: 32 * 1024 }),
    );
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(32 * 1024);
    expect(result.output).toMatch(/^z+\n\[\.\.\. \d+ bytes of output dropped here \.\.\.\]\nz+\n$/);
  });

  it('on timeout kills the whole tree: children, grandchildren, a SIGTERM-proof one and a setsid daemon', async () => {
    await using dir = await tempDir();
    const marker = newMarker();
    const name = `exec -a ${marker} sleep 300`;
    const script = [
      `(${name}) &`,
      `(bash -c '(${name}) & wait') &`,
      `(trap '' TERM; ${name}) &`,
      // Double-forks into a new session: outside the process group, found by its inherited marker.
      `setsid -f bash -c '${name}'`,
      'echo started; wait',
    ].join('\n');
    const result = await runCommand(
      options(dir.path, {
        argv: bash(script),
        timeoutMs: 700,
      }),
    );
    expect(result).toMatchObject({ timedOut: true, cancelled: false, output: 'started\n' });
    // SIGTERM, then SIGKILL after the 2 s grace for the process that ignores SIGTERM.
    expect(result.durationMs).toBeLessThan(5_000);
    expect(await processesWith(marker)).toEqual([]);
  });

  it('on abort kills the tree and reports cancellation', async () => {
    await using dir = await tempDir();
    const marker = newMarker();
    const controller = new AbortController();
    const running = runCommand(
      options(dir.path, {
        argv: bash(`(exec -a ${marker} sleep 300) & (exec -a ${marker} sleep 300) & echo up; wait`),
        signal: controller.signal,
        onLine: (_stream, text) => {
          if (text === 'up') controller.abort();
        },
      }),
    );
    const result = await running;
    expect(result).toMatchObject({ cancelled: true, timedOut: false, exitCode: null, signal: 'SIGTERM' });
    expect(result.durationMs).toBeLessThan(3_000);
    expect(await processesWith(marker)).toEqual([]);
  });

  it('does not start a command when already aborted', async () => {
    await using dir = await tempDir();
    const result = await runCommand(
      options(dir.path, { argv: bash(`touch ${dir.path}/ran`), signal: AbortSignal.abort() }),
    );
    expect(result).toMatchObject({ cancelled: true, exitCode: null });
    await expect(readFile(path.join(dir.path, 'ran'))).rejects.toThrow(/ENOENT/);
  });

  it('returns soon after the command exits when a background process holds the output, and kills it', async () => {
    await using dir = await tempDir();
    const marker = newMarker();
    const result = await runCommand(
      options(dir.path, { argv: bash(`(exec -a ${marker} sleep 300) & echo started`) }),
    );
    expect(result).toMatchObject({ exitCode: 0, output: 'started\n', killedBackground: true });
    expect(result.durationMs).toBeLessThan(3_000);
    expect(await processesWith(marker)).toEqual([]);
  });

  it('leaves a background process running when it let go of the output', async () => {
    await using dir = await tempDir();
    const marker = newMarker();
    const result = await runCommand(
      options(dir.path, { argv: bash(`(exec -a ${marker} sleep 300) >/dev/null 2>&1 & echo started`) }),
    );
    expect(result).toMatchObject({ exitCode: 0, killedBackground: false });
    expect(result.durationMs).toBeLessThan(1_000);
    // The subshell may exec `sleep` under its marker only after bash has exited: wait for it.
    expect(await eventually(async () => (await processesWith(marker)).length > 0)).toBe(true);
    expect(await processesWith(marker)).toHaveLength(1); // afterEach kills it.
  });

  it('throws only when the program cannot be started', async () => {
    await using dir = await tempDir();
    await expect(runCommand(options(dir.path, { argv: ['/nonexistent/program'] }))).rejects.toThrow(
      /could not start \/nonexistent\/program: ENOENT/,
    );
  });
});

describe('BoundedOutput', () => {
  it('keeps everything under the cap', () => {
    const output = new BoundedOutput(1000);
    output.append('a\n');
    output.append('b\n');
    expect(output.render()).toBe('a\nb\n');
    expect(output.truncated).toBe(false);
  });

  it('cuts the middle of multi-byte text without splitting characters or passing the cap', () => {
    const output = new BoundedOutput(600);
    for (let i = 0; i < 1000; i++) output.append(`${i} ünïcødé 🙂\n`);
    const text = output.render();
    expect(output.truncated).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(600);
    expect(text).not.toContain('\uFFFD');
    expect(text.startsWith('0 ünïcødé 🙂\n')).toBe(true);
    expect(text.endsWith('999 ünïcødé 🙂\n')).toBe(true);
  });
});

describe('TextLines', () => {
  it('joins split lines and a CRLF split across chunks', () => {
    const lines: string[] = [];
    const split = new TextLines((text) => lines.push(text), 16);
    expect(split.push('ab')).toBe('');
    expect(split.push('c\r')).toBe('');
    expect(split.push('\nd')).toBe('abc\n');
    expect(split.end()).toBe('d');
    expect(lines).toEqual(['abc', 'd']);
  });

  it('does not split a surrogate pair when cutting a long line', () => {
    const lines: string[] = [];
    const split = new TextLines((text) => lines.push(text), 4);
    split.push('abc🙂def\n');
    expect(lines.join('')).toBe('abc🙂def');
    expect(lines.every((line) => !/[\uD800-\uDBFF]$/.test(line))).toBe(true);
  });
});
