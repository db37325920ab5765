import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually } from '../support/processes.js';
import { type TempDir, tempDir } from '../support/temp-dir.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

const TOKEN = 'descriptor-test-token-0123456789';
/** A sleep no other test runs, so the command can be found among the host's processes while it waits. */
const MARK = 'sleep 1.37';
/**
 * What an attacker's command would do with descriptors it inherited: list them, create a file through
 * the directory one, append through the file one. The listing leaves out `ls`'s own of /proc/N/fd.
 */
const PROBE = [
  `ls -l /proc/self/fd | sed -n 's|.* \\([0-9]*\\) -> \\(.*\\)$|fd \\1 \\2|p' | grep -v ' /proc/[0-9]*/fd$'`,
  'echo X > /proc/self/fd/201/escaped.txt',
  'echo Y >&200',
  'cat /proc/self/fd/201/../secret.txt',
  MARK,
].join('; ');

interface Host {
  dir: TempDir;
  /** A host file the CLI holds open for appending, as fd 200. */
  file: string;
  /** A host directory the CLI holds open, as fd 201 (outside the workspace, and private /tmp inside). */
  outside: string;
  workspace: string;
}

async function host(): Promise<Host> {
  const dir = await tempDir('fds-');
  const file = path.join(dir.path, 'host-file');
  const outside = path.join(dir.path, 'outside');
  const workspace = path.join(dir.path, 'ws');
  await writeFile(file, 'host\n');
  await mkdir(outside);
  await mkdir(workspace);
  await writeFile(path.join(dir.path, 'secret.txt'), 'SECRET-NEXT-TO-OUTSIDE\n');
  return { dir, file, outside, workspace };
}

/** Starts the real CLI the way a shell does with `200>>FILE 201<DIR` on its command line. */
function cliWithDescriptors(h: Host, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(
    'bash',
    [
      '-c',
      'exec 200>>"$1" 201<"$2"; shift 2; exec "$@"',
      'bash',
      h.file,
      h.outside,
      process.execPath,
      distPath('cli', 'skate.js'),
      ...args,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

function collect(child: ChildProcess): { output(): string; closed: Promise<number | null> } {
  let text = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  return { output: () => text, closed: new Promise((resolve) => child.once('close', resolve)) };
}

/** The descriptors the probe's listing printed: `fd N target` lines. */
function listedDescriptors(output: string): string[] {
  return [...output.matchAll(/^fd (\d+) /gm)].map((match) => match[1]!);
}

/**
 * Every process below `pid` with a descriptor on the host file or directory, found from the host
 * while the probe's sleep runs; waits for that sleep first. Returns the offenders and the command
 * lines seen, so a test can tell it looked at the executor and its sandbox.
 */
async function holdersBelow(pid: number, h: Host): Promise<{ offenders: string[]; seen: string[] }> {
  const sleeping = await eventually(async () => {
    for (const child of await processDescendants(pid)) {
      if ((await commandLine(child)) === MARK) return true;
    }
    return false;
  }, 20_000);
  expect(sleeping, 'the probe command never ran').toBe(true);
  const offenders: string[] = [];
  const seen: string[] = [];
  for (const child of await processDescendants(pid)) {
    const line = await commandLine(child);
    seen.push(line);
    const fds = await readdir(`/proc/${child}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${child}/fd/${fd}`).catch(() => '');
      // The workspace too: bubblewrap mounts it from a descriptor, which must not stay open after.
      if (target === h.file || target === h.outside || target === h.workspace)
        offenders.push(`${line} holds fd ${fd} -> ${target}`);
    }
  }
  return { offenders, seen };
}

/** What the host must look like afterwards, whatever the command tried. */
async function expectHostUntouched(h: Host): Promise<void> {
  expect(await readFile(h.file, 'utf8')).toBe('host\n');
  expect(await readdir(h.outside)).toEqual([]);
}

describe.skipIf(noSandbox)('descriptors: nothing the CLI inherited crosses into a sandbox', () => {
  it('skate tool shell: the command sees only 0-2; no process below the CLI holds the host file or directory', async () => {
    const h = await host();
    await using _ = h.dir;
    const cli = cliWithDescriptors(
      h,
      [
        'tool',
        'shell',
        '--policy',
        'execute',
        '--workspace',
        h.workspace,
        '--input',
        JSON.stringify({ command: PROBE }),
      ],
      process.env,
    );
    const run = collect(cli);
    const { offenders, seen } = await holdersBelow(cli.pid!, h);
    await run.closed;
    await expectHostUntouched(h);
    expect(offenders).toEqual([]);
    expect(seen.some((line) => line.includes('executor.js'))).toBe(true);
    const result = JSON.parse(run.output().slice(run.output().indexOf('{'))) as { output: string };
    expect(listedDescriptors(result.output)).toEqual(['0', '1', '2']);
    expect(result.output).not.toContain('SECRET-NEXT-TO-OUTSIDE');
  });

  it('skate -p: a model calling shell (after js_eval started its worker) gets the same; the worker holds nothing either', async () => {
    const h = await host();
    await using _ = h.dir;
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_1', name: 'js_eval', input: { code: '1 + 1' } }],
        stopReason: 'tool_use',
      },
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_2', name: 'shell', input: { command: PROBE } }],
        stopReason: 'tool_use',
      },
      { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const cli = cliWithDescriptors(
      h,
      ['-p', 'probe', '--output-format', 'json', '--workspace', h.workspace, '--policy', 'execute'],
      { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-fds', ANTHROPIC_BASE_URL: api.url },
    );
    const run = collect(cli);
    const { offenders, seen } = await holdersBelow(cli.pid!, h);
    const code = await run.closed;
    expect(code, run.output()).toBe(0);
    await expectHostUntouched(h);
    expect(offenders).toEqual([]);
    expect(seen.some((line) => line.includes('js-eval-worker.js'))).toBe(true);
    const shellResult = toolResultText(api.requests[2]?.body?.messages.at(-1)?.content);
    expect(listedDescriptors(shellResult)).toEqual(['0', '1', '2']);
    expect(shellResult).not.toContain('SECRET-NEXT-TO-OUTSIDE');
  });

  it('skate executor serve: a client’s command sees only 0-2; the served executor holds nothing of the server’s', async () => {
    const h = await host();
    await using _ = h.dir;
    const server = cliWithDescriptors(
      h,
      ['executor', 'serve', '--listen', '127.0.0.1:0', '--workspace', h.workspace, '--policy', 'execute'],
      { ...process.env, SKATE_EXECUTOR_TOKEN: TOKEN },
    );
    const served = collect(server);
    try {
      expect(await eventually(() => /serving ws:\/\/127\.0\.0\.1:\d+/.test(served.output()), 15_000)).toBe(
        true,
      );
      const url = /serving (ws:\/\/127\.0\.0\.1:\d+)/.exec(served.output())![1]!;
      // The client holds no extra descriptor: whatever the command sees came from the server's side.
      const client = spawn(
        process.execPath,
        [
          distPath('cli', 'skate.js'),
          'tool',
          'shell',
          '--executor',
          url,
          '--input',
          JSON.stringify({ command: PROBE }),
        ],
        { env: { ...process.env, SKATE_EXECUTOR_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const called = collect(client);
      const { offenders, seen } = await holdersBelow(server.pid!, h);
      await called.closed;
      await expectHostUntouched(h);
      expect(offenders).toEqual([]);
      expect(seen.some((line) => line.includes('executor.js'))).toBe(true);
      const result = JSON.parse(called.output().slice(called.output().indexOf('{'))) as { output: string };
      expect(listedDescriptors(result.output)).toEqual(['0', '1', '2']);
    } finally {
      server.kill('SIGTERM');
      await served.closed;
    }
  });
});

describe('descriptors: skate-confine passes on only what it is told to', () => {
  it('--keep-fd passes one on purpose; the rest close, and a subreaper keeps none for itself', async () => {
    await using dir = await tempDir('fds-keep-');
    const file = path.join(dir.path, 'host-file');
    await writeFile(file, 'host\n');
    const confine = distPath('bin', 'skate-confine');
    const start = (...args: string[]) =>
      spawn(
        'bash',
        ['-c', 'exec 200>>"$1" 201<"$2"; shift 2; exec "$@"', 'bash', file, dir.path, confine, ...args],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
    const list = `ls /proc/self/fd | sort -n | tr '\\n' ' '; ${MARK}`;
    const kept = start('--keep-fd', '201', '--subreaper', '--', 'sh', '-c', list);
    const keptRun = collect(kept);
    // While the command sleeps, the subreaper (the process we started) holds only stdio.
    const sleeping = async () => {
      for (const child of await processDescendants(kept.pid!))
        if ((await commandLine(child)) === MARK) return true;
      return false;
    };
    expect(await eventually(sleeping, 5_000)).toBe(true);
    expect((await readdir(`/proc/${kept.pid}/fd`)).sort()).toEqual(['0', '1', '2']);
    expect(await keptRun.closed).toBe(0);
    // sh's own listing: 0-2, the kept 201, and ls's descriptor of the directory it lists.
    expect(keptRun.output().trim().split(' ')).toEqual(['0', '1', '2', '3', '201']);
    const refused = start('--keep-fd', '2', '--', 'true');
    const refusedRun = collect(refused);
    expect(await refusedRun.closed).toBe(125);
    expect(refusedRun.output()).toMatch(/--keep-fd needs a descriptor number above 2/);
    const closed = start('--keep-fd', '150', '--', 'true');
    expect(await collect(closed).closed).toBe(126);
    expect(await readFile(file, 'utf8')).toBe('host\n');
  });
});

/** The text of a tool_result block in a request's last message. */
function toolResultText(content: unknown): string {
  const blocks = Array.isArray(content) ? (content as { type: string; content?: unknown }[]) : [];
  const result = blocks.find((block) => block.type === 'tool_result');
  if (!result) return '';
  if (typeof result.content === 'string') return result.content;
  return ((result.content ?? []) as { text?: string }[]).map((part) => part.text ?? '').join('');
}
