import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import { homedir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { startExecutorProcess } from '../../harness/executor-client/executor-process.js';
import { distPath, projectRoot } from '../../harness/project-paths.js';
import { resolvePolicy } from '../../harness/runtime/start-executor.js';
import { transformer } from '../../shared/trpc.js';
import { EXECUTOR_TOKEN, startExecutorServe } from '../support/executor-serve.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import {
  fuzzBudget,
  fuzzInputs,
  fuzzTimeoutMs,
  materialize,
  rawSession,
  trpcFrame,
  withHugeFrames,
} from '../support/fuzz-inputs.js';
import { acpLine, CWD, httpRequest, SESSION } from '../support/fuzz-requests.js';
import { hostDir } from '../support/host-dir.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually, isAlive } from '../support/processes.js';
import { type RawWebSocket, rawWebSocket } from '../support/raw-websocket.js';
import { memoryMiB, treeSnapshot } from '../support/server-probes.js';
import { SERVE_TOKEN, startSkateServe } from '../support/skate-serve.js';

/**
 * Protocol fuzzing of every channel a peer reaches: tRPC frames over the
 * private stdio channel and over `executor serve`'s WebSocket, raw WebSocket
 * frames, HTTP requests to `skate serve`, JSON-RPC lines to `skate acp`. Fixed
 * seed, bounded run (SKATE_FUZZ_ITERATIONS / SKATE_FUZZ_SECONDS / SKATE_FUZZ_SEED
 * to run longer by hand). After each run, on the host: the process is alive
 * and answers a well-formed request, its peak RSS stayed bounded, no executor
 * was left behind, no file appeared.
 */

/** Peak RSS each target's process may reach, in MiB (measured peaks are reported; see the README). */
const RSS_LIMIT_MIB = { executor: 300, relay: 300, serve: 200, acp: 256 };
/** Inputs between two liveness checks: a crash is pinned to the last few inputs. */
const CHECK_EVERY = 25;

const KEY = 'sk-ant-test-key-for-fuzz';
const TEXT: FakeReply = { type: 'message', blocks: [{ type: 'text', text: 'ok' }] };

interface Figures {
  target: string;
  inputs: number;
  seconds: number;
  peakRssMiB: number;
  notes?: string;
}
const figures: Figures[] = [];
afterAll(() => {
  for (const f of figures) {
    console.log(
      `fuzz ${f.target}: ${f.inputs} inputs in ${f.seconds.toFixed(1)} s, 0 crashes, peak RSS ${f.peakRssMiB.toFixed(0)} MiB${f.notes ? ` (${f.notes})` : ''}`,
    );
  }
});

/** A well-formed health query, as the harness's client writes one. */
const HEALTH = (id: string): string =>
  JSON.stringify({
    id,
    method: 'query',
    params: { path: 'health', input: transformer.serialize(undefined) },
  });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Fails the test naming the inputs since the last good check, so a crash can be replayed. */
function crashed(target: string, recent: unknown[], why: string): never {
  const shown = recent.map((input) => JSON.stringify(input)?.slice(0, 300)).join('\n');
  throw new Error(`fuzz ${target}: ${why} after one of these inputs:\n${shown}`);
}

/** Kills `child` (SIGKILL) when the scope ends, unless it has exited: a failed check leaves no process. */
function killOnDispose(child: ChildProcess): AsyncDisposable {
  return {
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The node process of a sandboxed executor (below bwrap), for its memory. */
async function executorNode(outerPid: number): Promise<number | undefined> {
  for (const pid of [outerPid, ...(await processDescendants(outerPid))]) {
    const line = await commandLine(pid);
    const program = line.split(' ')[0] ?? '';
    if (line.includes('executor.js') && /(^|\/)node[\d.]*$/.test(program)) return pid;
  }
  return undefined;
}

describe('protocol fuzzing (fixed seed, bounded run; every check on the host)', () => {
  it(
    'tRPC frames over the private stdio channel to a real sandboxed executor',
    async () => {
      await using ws = await hostDir('fuzz-stdio-');
      await using outside = await hostDir('fuzz-outside-');
      await writeFile(`${ws.path}/notes.txt`, 'notes\n');
      const before = [await treeSnapshot(ws.path), await treeSnapshot(outside.path)];
      const maxFrameBytes = 1024 * 1024;
      const policy = await resolvePolicy('readonly', ws.path);
      const answers = new Map<string, (frame: string) => void>();
      let received = 0;
      const executor = await startExecutorProcess(
        { policy, maxFrameBytes },
        {
          frame: (text) => {
            received++;
            const id = /^\{"id":"(live-\d+)"/.exec(text)?.[1];
            if (id) answers.get(id)?.(text);
          },
        },
      );
      // Whatever a failed check leaves, the executor goes with the test.
      await using _executor = killOnDispose(executor.child);
      const input = executor.child.stdin!;
      let checks = 0;
      const alive = async (): Promise<boolean> => {
        const id = `live-${checks++}`;
        const answered = new Promise<string>((resolve) => answers.set(id, resolve));
        executor.channel.send(HEALTH(id));
        const answer = await Promise.race([answered, sleep(15_000).then(() => '')]);
        return answer.includes('"result"');
      };
      expect(await alive()).toBe(true);
      const budget = fuzzBudget(400);
      const started = Date.now();
      let inputs = 0;
      const recent: unknown[] = [];
      for (const frame of fuzzInputs(withHugeFrames(trpcFrame, maxFrameBytes), budget.runs)) {
        if (Date.now() - started > budget.ms) break;
        executor.channel.send(materialize(frame));
        recent.push(frame);
        inputs++;
        if (input.writableNeedDrain) await new Promise((resolve) => input.once('drain', resolve));
        if (inputs % CHECK_EVERY === 0) {
          if (!(await alive())) crashed('stdio', recent, 'the executor stopped answering');
          recent.length = 0;
        }
      }
      // On the host: it answers, it ran within its memory, it leaves nothing behind, it wrote nothing.
      expect(await alive()).toBe(true);
      expect(executor.child.exitCode).toBeNull();
      const node = await executorNode(executor.child.pid!);
      expect(node).toBeDefined();
      const { peak } = await memoryMiB(node!);
      const below = await processDescendants(executor.child.pid!);
      executor.channel.close();
      await executor.exited;
      for (const pid of below) expect(await eventually(async () => !(await isAlive(pid)), 5_000)).toBe(true);
      expect([await treeSnapshot(ws.path), await treeSnapshot(outside.path)]).toEqual(before);
      expect(peak).toBeLessThan(RSS_LIMIT_MIB.executor);
      figures.push({
        target: 'stdio tRPC',
        inputs,
        seconds: (Date.now() - started) / 1000,
        peakRssMiB: peak,
        notes: `${received} frames back`,
      });
    },
    fuzzTimeoutMs(),
  );

  it(
    'tRPC frames and raw WebSocket frames to `skate executor serve`, with and without the token',
    async () => {
      await using ws = await hostDir('fuzz-relay-');
      await using outside = await hostDir('fuzz-outside-');
      await writeFile(`${ws.path}/notes.txt`, 'notes\n');
      const before = [await treeSnapshot(ws.path), await treeSnapshot(outside.path)];
      await using server = await startExecutorServe(ws.path, [
        '--policy',
        'readonly',
        '--max-executors',
        '4',
      ]);
      const pid = server.child.pid!;
      const budget = fuzzBudget(300, 3);

      // 1. tRPC frames on an authorized connection, reconnecting whenever the server closes one (a frame too big).
      let socket: WebSocket | undefined;
      const answers = new Map<string, () => void>();
      const connect = async (): Promise<WebSocket> => {
        for (;;) {
          const next = new WebSocket(server.url, { headers: { authorization: `Bearer ${EXECUTOR_TOKEN}` } });
          next.on('close', (code, reason) => {
            const key = `${code}${reason.length > 0 ? ` ${reason}` : ''}`;
            closes.set(key, (closes.get(key) ?? 0) + 1);
          });
          next.on('message', (data) => {
            const id = /^\{"id":"(live-\d+)"/.exec(String(data))?.[1];
            if (id) answers.get(id)?.();
          });
          const opened = await new Promise<boolean>((resolve) => {
            next.once('open', () => resolve(true));
            next.once('error', () => resolve(false));
          });
          if (opened) return next;
          await sleep(200);
        }
      };
      let checks = 0;
      /** How the server closed our connections: 1009 for a frame too big; 1011 would be an executor that died. */
      const closes = new Map<string, number>();
      const alive = async (): Promise<boolean> => {
        // A close already on its way (a frame too big, sent just before) is not a server that stopped answering.
        for (let attempt = 0; attempt < 3; attempt++) {
          if (!socket || socket.readyState !== WebSocket.OPEN) socket = await connect();
          const current = socket;
          const id = `live-${checks++}`;
          const answer = await new Promise<'answered' | 'closed' | 'silent'>((resolve) => {
            answers.set(id, () => resolve('answered'));
            current.once('close', () => resolve('closed'));
            current.send(HEALTH(id));
            setTimeout(() => resolve('silent'), 15_000);
          });
          if (answer !== 'closed') return answer === 'answered';
        }
        return false;
      };
      // The clock starts once the connection's executor answers (a sandbox takes a while to start).
      expect(await alive()).toBe(true);
      const started = Date.now();
      let inputs = 0;
      const recent: unknown[] = [];
      // Huge frames are rare here: the client masks each byte in JS (about 1 s for 16 MiB); servers.test.ts has more.
      for (const frame of fuzzInputs(withHugeFrames(trpcFrame, 16 * 1024 * 1024, 60), budget.runs)) {
        if (Date.now() - started > budget.ms) break;
        if (!socket || socket.readyState !== WebSocket.OPEN) socket = await connect();
        socket.send(materialize(frame));
        recent.push(frame);
        inputs++;
        if (inputs % CHECK_EVERY === 0) {
          if (!(await alive()) || server.child.exitCode !== null)
            crashed('relay tRPC', recent, 'the server stopped answering');
          recent.length = 0;
        }
      }
      socket?.terminate();

      // 2. Connections written by hand: handshakes with and without the token, frames no client sends.
      const rawStarted = Date.now();
      let sessions = 0;
      const left: RawWebSocket[] = [];
      for (const session of fuzzInputs(rawSession(EXECUTOR_TOKEN), budget.runs)) {
        if (Date.now() - rawStarted > budget.ms) break;
        const raw = await rawWebSocket(server.port, session.headers);
        recent.push(session);
        sessions++;
        if (raw.status.includes(' 101 ')) {
          for (const frame of session.frames) raw.send(frame);
          if (session.end === 'close') raw.send({ opcode: 8, payload: Buffer.from([0x03, 0xe8]) });
          if (session.end === 'half-close') raw.socket.end();
          if (session.end === 'destroy') raw.destroy();
        }
        if (session.end === 'leave' && left.length < 20) left.push(raw);
        else if (session.end !== 'half-close') setTimeout(() => raw.destroy(), 200);
        if (sessions % CHECK_EVERY === 0) {
          if (!(await alive()) || server.child.exitCode !== null)
            crashed('relay frames', recent, 'the server stopped answering');
          socket?.terminate();
          recent.length = 0;
        }
      }
      for (const raw of left) raw.destroy();
      socket?.terminate();

      // On the host: the server runs and serves a well-formed client; no executor outlives its connection.
      expect(server.child.exitCode).toBeNull();
      // No frame made an executor exit (the server closes with 1011 when one does).
      expect([...closes.keys()].filter((why) => why.startsWith('1011'))).toEqual([]);
      const client = await eventually(async () => {
        const ready = await ExecutorClient.connect(server.url, { token: EXECUTOR_TOKEN }).catch(
          () => undefined,
        );
        if (ready) await ready.shutdown();
        return ready !== undefined;
      }, 20_000);
      expect(client).toBe(true);
      expect(await eventually(async () => (await processDescendants(pid)).length === 0, 20_000)).toBe(true);
      const { peak } = await memoryMiB(pid);
      expect([await treeSnapshot(ws.path), await treeSnapshot(outside.path)]).toEqual(before);
      expect(peak).toBeLessThan(RSS_LIMIT_MIB.relay);
      figures.push({
        target: 'executor serve',
        inputs: inputs + sessions,
        seconds: (Date.now() - started) / 1000,
        peakRssMiB: peak,
        notes: `${inputs} tRPC frames, ${sessions} hand-written connections; our connections closed: ${[...closes].map(([why, n]) => `${why} ×${n}`).join(', ') || 'none'}`,
      });
    },
    fuzzTimeoutMs(),
  );

  it(
    'HTTP requests to `skate serve`: methods, paths, headers, bodies, framing, huge heads',
    async () => {
      await using ws = await hostDir('fuzz-serve-');
      await using outside = await hostDir('fuzz-outside-');
      await writeFile(`${ws.path}/notes.txt`, 'notes\n');
      await using api = await fakeMessagesApi(Array.from({ length: 2000 }, () => TEXT));
      await using server = await startSkateServe(
        ['--workspace', ws.path, '--policy', 'readonly', '--approval', 'auto', '--max-sessions', '4'],
        { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: api.url },
      );
      const pid = server.child.pid!;
      const created = await server.request('/v1/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      // Sessions keep their logs in .skate (the harness's own, read-only to sandboxes): everything else is compared.
      const before = [await treeSnapshot(ws.path, ['.skate']), await treeSnapshot(outside.path)];
      const port = Number(new URL(server.url).port);
      const send = (text: string): Promise<string> =>
        new Promise((resolve) => {
          const socket = net.connect(port, '127.0.0.1');
          let answer = '';
          const done = () => {
            socket.destroy();
            resolve(answer);
          };
          socket.on('data', (chunk) => {
            if (answer.length < 8_192) answer += String(chunk);
          });
          socket.on('error', done);
          socket.on('close', done);
          socket.write(text, 'latin1');
          setTimeout(done, 300);
        });
      // What no answer may be, whatever was asked: an error naming a path of the host (errors name the workspace
      // as the client does, relative to the server's), or a 5xx (bad input is the client's fault).
      const hostPaths = [ws.path, outside.path, homedir(), projectRoot()];
      const checkAnswer = (answer: string, request: string): void => {
        if (/^HTTP\/1\.1 5\d\d/.test(answer))
          crashed('serve HTTP', [request], `a 5xx:\n${answer.slice(0, 600)}`);
        // A session's own workspace is part of its description (GET /v1/sessions); an error names none.
        if (!/^HTTP\/1\.1 4\d\d/.test(answer)) return;
        for (const hostPath of hostPaths) {
          if (answer.includes(hostPath))
            crashed(
              'serve HTTP',
              [request],
              `an error names the host path ${hostPath}:\n${answer.slice(0, 600)}`,
            );
        }
      };
      const alive = async (): Promise<boolean> => {
        const response = await server.request('/v1/sessions').catch(() => undefined);
        await response?.text();
        return response?.status === 200;
      };
      const budget = fuzzBudget(500);
      const started = Date.now();
      let inputs = 0;
      const statuses = new Map<string, number>();
      const recent: unknown[] = [];
      for (const request of fuzzInputs(
        httpRequest({ token: SERVE_TOKEN, sessionId: id, port }),
        budget.runs,
      )) {
        if (Date.now() - started > budget.ms) break;
        const answer = await send(request);
        checkAnswer(answer, request);
        const status = /^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 'none';
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        recent.push(request.slice(0, 300));
        inputs++;
        if (inputs % CHECK_EVERY === 0) {
          if (!(await alive())) crashed('serve HTTP', recent, 'the server stopped answering');
          recent.length = 0;
        }
      }
      // On the host: it answers, a new session still starts, and deleting every session leaves no executor.
      expect(server.child.exitCode).toBeNull();
      const openapi = await server.request('/openapi.json');
      expect(openapi.status).toBe(200);
      await openapi.text();
      const list = async () =>
        ((await (await server.request('/v1/sessions')).json()) as { sessions: { id: string }[] }).sessions;
      for (const session of await list())
        await server.request(`/v1/sessions/${session.id}`, { method: 'DELETE' });
      const fresh = await server.request('/v1/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(fresh.status).toBe(201);
      await fresh.text();
      for (const session of await list())
        await server.request(`/v1/sessions/${session.id}`, { method: 'DELETE' });
      expect(await eventually(async () => (await processDescendants(pid)).length === 0, 20_000)).toBe(true);
      const { peak } = await memoryMiB(pid);
      expect([await treeSnapshot(ws.path, ['.skate']), await treeSnapshot(outside.path)]).toEqual(before);
      expect(peak).toBeLessThan(RSS_LIMIT_MIB.serve);
      const seen = [...statuses]
        .sort()
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      figures.push({
        target: 'skate serve HTTP',
        inputs,
        seconds: (Date.now() - started) / 1000,
        peakRssMiB: peak,
        notes: seen,
      });
    },
    fuzzTimeoutMs(),
  );

  it(
    'JSON-RPC lines to `skate acp` over stdio: requests, notifications, stray responses, batches, garbage',
    async () => {
      await using ws = await hostDir('fuzz-acp-');
      await using outside = await hostDir('fuzz-outside-');
      await writeFile(`${ws.path}/notes.txt`, 'notes\n');
      await using api = await fakeMessagesApi(Array.from({ length: 2000 }, () => TEXT));
      const hadRootSkate = existsSync('/.skate');
      const before = [await treeSnapshot(ws.path, ['.skate']), await treeSnapshot(outside.path)];
      const child: ChildProcessWithoutNullStreams = spawn(
        process.execPath,
        [distPath('cli', 'skate.js'), 'acp', '--approval', 'auto', '--verbose'],
        {
          cwd: ws.path,
          env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: api.url },
          stdio: 'pipe',
        },
      );
      await using _child = killOnDispose(child);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-20_000);
      });
      const sessionIds: string[] = [];
      let closed = 0;
      const answers = new Map<string, (message: Record<string, unknown>) => void>();
      let rest = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const line of lines) {
          let message: Record<string, unknown>;
          try {
            message = JSON.parse(line) as Record<string, unknown>;
          } catch {
            continue;
          }
          const result = message.result as { sessionId?: unknown } | undefined;
          if (typeof result?.sessionId === 'string' && !sessionIds.includes(result.sessionId))
            sessionIds.push(result.sessionId);
          if (typeof message.id === 'string') answers.get(message.id)?.(message);
        }
      });
      const write = async (line: string): Promise<void> => {
        if (!child.stdin.write(`${line}\n`))
          await new Promise((resolve) => child.stdin.once('drain', resolve));
      };
      let checks = 0;
      const ask = async (method: string, params: unknown): Promise<Record<string, unknown> | undefined> => {
        const id = `live-${checks++}`;
        const answered = new Promise<Record<string, unknown>>((resolve) => answers.set(id, resolve));
        await write(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
        return Promise.race([answered, sleep(15_000).then(() => undefined)]);
      };
      const initialize = { protocolVersion: 1, clientCapabilities: {} };
      expect((await ask('initialize', initialize))?.result).toBeDefined();
      // One real session from the start, so that lines naming a session reach one.
      expect((await ask('session/new', { cwd: ws.path, mcpServers: [] }))?.result).toBeDefined();
      const budget = fuzzBudget(400);
      const started = Date.now();
      let inputs = 0;
      const recent: unknown[] = [];
      for (const line of fuzzInputs(acpLine, budget.runs)) {
        if (Date.now() - started > budget.ms) break;
        const session =
          sessionIds[inputs % Math.max(1, sessionIds.length)] ?? '0190c0de-0000-7000-8000-000000000000';
        const filled = line.replaceAll(CWD, ws.path).replaceAll(SESSION, session);
        await write(filled);
        recent.push(filled.slice(0, 300));
        inputs++;
        if (inputs % CHECK_EVERY === 0) {
          const answer = await ask('session/list', { cwd: ws.path });
          if (!answer || child.exitCode !== null)
            crashed('acp', recent, `skate acp stopped answering\n${stderr}`);
          recent.length = 0;
          // skate acp has no session cap (its one peer is the editor): keep a long run to a few executors.
          for (const sessionId of sessionIds.splice(0, Math.max(0, sessionIds.length - 3))) {
            await ask('session/close', { sessionId });
            closed++;
          }
        }
      }
      // On the host: it answers, runs within its memory, closes every session, exits 0, and wrote nothing.
      expect((await ask('initialize', initialize))?.result).toMatchObject({ protocolVersion: 1 });
      const { peak } = await memoryMiB(child.pid!);
      for (const sessionId of sessionIds) await ask('session/close', { sessionId });
      const below = await processDescendants(child.pid!);
      child.stdin.end();
      const code = await Promise.race([exited, sleep(30_000).then(() => 'still running')]);
      if (code !== 0) {
        const left = await Promise.all(
          below.map(async (pid) => `${pid} ${(await commandLine(pid)).slice(0, 120)}`),
        );
        child.kill('SIGKILL');
        const log = stderr.split('\n').filter((line) => !line.startsWith('Got response to unknown request'));
        throw new Error(
          `skate acp did not exit 0 (${code}); processes: ${left.join('; ')}\n${log.slice(-30).join('\n')}`,
        );
      }
      for (const pid of below) expect(await eventually(async () => !(await isAlive(pid)), 5_000)).toBe(true);
      expect(existsSync('/.skate')).toBe(hadRootSkate);
      expect([await treeSnapshot(ws.path, ['.skate']), await treeSnapshot(outside.path)]).toEqual(before);
      expect(peak).toBeLessThan(RSS_LIMIT_MIB.acp);
      figures.push({
        target: 'skate acp',
        inputs,
        seconds: (Date.now() - started) / 1000,
        peakRssMiB: peak,
        notes: `${sessionIds.length + closed} sessions opened`,
      });
    },
    fuzzTimeoutMs(),
  );
});
