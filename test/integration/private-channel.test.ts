import { spawn } from 'node:child_process';
import { open, readdir, readFile, readlink } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { ExecutorChannelError } from '../../harness/executor-client/executor-errors.js';
import { serveExecutors } from '../../harness/executor-relay/executor-relay-server.js';
import { distPath } from '../../harness/project-paths.js';
import { testPolicy } from '../support/policies.js';
import { eventually, isAlive } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const TOKEN = 'test-token-0123456789abcdef';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Socket inodes of listening sockets (unix and TCP) on this host. */
async function listeningInodes(): Promise<Set<string>> {
  const inodes = new Set<string>();
  const unix = (await readFile('/proc/net/unix', 'utf8')).split('\n').slice(1);
  for (const line of unix) {
    const fields = line.trim().split(/\s+/);
    // Flags 00010000 is __SO_ACCEPTCON: a listening socket.
    if (fields[3] === '00010000') inodes.add(fields[6]!);
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const rows = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1);
    for (const row of rows) {
      const fields = row.trim().split(/\s+/);
      if (fields[3] === '0A') inodes.add(fields[9]!);
    }
  }
  return inodes;
}

async function socketInodesOf(pid: number): Promise<string[]> {
  const inodes: string[] = [];
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.push(match[1]!);
  }
  return inodes;
}

describe('the private channel', () => {
  it('offers nothing to connect to: the executor listens on no socket', async () => {
    await using dir = await tempDir();
    const executor = await ExecutorClient.spawn({ policy: testPolicy(dir.path), diagnosticTools: true });
    cleanups.push(() => executor.shutdown());
    const pid = executor.pid!;
    const mine = await socketInodesOf(pid);
    expect(mine.length).toBeGreaterThanOrEqual(2); // stdin and stdout are socketpairs
    const listening = await listeningInodes();
    expect(mine.filter((inode) => listening.has(inode))).toEqual([]);
  });

  it('cannot be opened by another process through /proc', async () => {
    await using dir = await tempDir();
    const executor = await ExecutorClient.spawn({ policy: testPolicy(dir.path), diagnosticTools: true });
    cleanups.push(() => executor.shutdown());
    for (const fd of [0, 1]) {
      // A socket cannot be reopened by path; a pipe could, which is why the channel is a socketpair.
      await expect(open(`/proc/${executor.pid}/fd/${fd}`, 'r+')).rejects.toMatchObject({ code: 'ENXIO' });
    }
    expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
  });

  it("cannot be reached by the executor's own commands: its fds, memory and ptrace are out of reach", async () => {
    await using dir = await tempDir();
    const executor = await ExecutorClient.spawn({ policy: testPolicy(dir.path), diagnosticTools: true });
    cleanups.push(() => executor.shutdown());
    // Inside the sandbox: find the executor, then try every way to its channel that same-uid root has.
    const probe = [
      // The node process itself, not the sandbox's init (skate-confine, whose argv names executor.js too).
      'pid=$(grep -l executor.js /proc/[0-9]*/cmdline | xargs grep -L skate-confine | head -1 | cut -d/ -f3)',
      'echo "executor=$pid"',
      'for fd in 0 1; do (exec 3<>/proc/$pid/fd/$fd) 2>/dev/null && echo "OPENED fd $fd" || echo "no fd $fd"; done',
      'ls -l /proc/$pid/fd/ 2>/dev/null | grep -c socket || true',
      'head -c 16 /proc/$pid/mem >/dev/null 2>&1 && echo "READ mem" || echo "no mem"',
      `python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); p=int(sys.argv[1]); print("ATTACHED" if l.ptrace(16,p,0,0)==0 else "no ptrace"); f=l.syscall(434,p,0); print("GOT FD" if f>=0 and l.syscall(438,f,0,0)>=0 else "no pidfd_getfd")' $pid`,
      'kill -0 $pid 2>/dev/null && echo "SIGNALLED" || echo "no signal"',
    ].join('\n');
    const result = await executor.callTool('shell', { command: probe });
    expect(result.output).toMatch(/executor=([2-9]|\d\d+)\n/);
    for (const line of ['no fd 0', 'no fd 1', 'no mem', 'no ptrace', 'no pidfd_getfd', 'no signal']) {
      expect(result.output).toContain(line);
    }
    expect(result.output).not.toMatch(/OPENED|READ mem|ATTACHED|GOT FD|SIGNALLED/);
    // And the executor is still serving its harness.
    expect(await executor.callTool('noop', {})).toMatchObject({ output: 'ok' });
  });

  it.each(['idle', 'busy'])('leaves no executor behind when its harness is SIGKILLed (%s)', async (state) => {
    await using dir = await tempDir();
    const client = distPath('harness', 'executor-client', 'executor-client.js');
    const script = `
      import { ExecutorClient } from ${JSON.stringify(client)};
      const policy = ${JSON.stringify(testPolicy(dir.path))};
      const executor = await ExecutorClient.spawn({ policy, diagnosticTools: true });
      console.log(executor.pid);
      if (${state === 'busy'}) await executor.callTool('emit_lines', { count: 100000, intervalMs: 10 });
      else setInterval(() => {}, 1000);
    `;
    const harness = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = Number(
      await new Promise<string>((resolve) => harness.stdout.once('data', (d) => resolve(String(d)))),
    );
    expect(await isAlive(pid)).toBe(true);
    harness.kill('SIGKILL');
    expect(await eventually(async () => !(await isAlive(pid)), 3_000)).toBe(true);
  });
});

describe('executors served to remote harnesses', () => {
  it('serves calls to a harness with the token, each connection on its own executor', async () => {
    await using dir = await tempDir();
    const server = await serveExecutors({
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      policy: testPolicy(dir.path, { name: 'remote' }),
      maxFrameBytes: 1024 * 1024,
    });
    cleanups.push(() => server.close());
    const first = await ExecutorClient.connect(server.url, { token: TOKEN });
    const a = server.executorPids();
    const second = await ExecutorClient.connect(server.url, { token: TOKEN });
    const b = server.executorPids().filter((pid) => !a.includes(pid));
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(1);
    expect(await first.health()).toMatchObject({ policy: 'remote', enforcement: 'kernel' });
    expect(await first.callTool('write_file', { path: 'r.txt', content: 'remote' })).toMatchObject({
      isError: false,
    });
    expect(await second.callTool('read_file', { path: 'r.txt' })).toMatchObject({ output: '1\tremote' });
    // Closing the connection ends its executor, and only that one.
    await first.shutdown();
    expect(await eventually(async () => !(await isAlive(a[0]!)), 5_000)).toBe(true);
    expect(await isAlive(b[0]!)).toBe(true);
    await second.shutdown();
    expect(await eventually(async () => !(await isAlive(b[0]!)), 5_000)).toBe(true);
  });

  it('refuses connections without the right token and starts no executor for them', async () => {
    await using dir = await tempDir();
    let started = 0;
    const server = await serveExecutors({
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      policy: testPolicy(dir.path),
      maxFrameBytes: 1024 * 1024,
      onLog: (line) => {
        if (line.startsWith('connection from')) started++;
      },
    });
    cleanups.push(() => server.close());
    for (const token of ['wrong-token-0123456789', '', `${TOKEN}x`]) {
      const error = await ExecutorClient.connect(server.url, { token }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExecutorChannelError);
      expect((error as Error).message).toContain('HTTP 401');
    }
    expect(started).toBe(0);
  });
});
