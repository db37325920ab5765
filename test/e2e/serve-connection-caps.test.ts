import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { cliEnv } from '../support/cli-world.js';
import { hostDir } from '../support/host-dir.js';
import { SERVE_TOKEN, startSkateServe } from '../support/skate-serve.js';

// No model is reached: the requests here list sessions.
const ENV = cliEnv({ api: 'http://127.0.0.1:9' });

/**
 * `count` keep-alive connections from this one address, each sending one authorized request and
 * staying open after its answer, as a backend's connection pool does. Resolves, per connection,
 * the answer's status code, or 0 for one the server closed without answering.
 */
async function keepAliveClients(
  port: number,
  count: number,
): Promise<{ statuses: number[]; sockets: net.Socket[] }> {
  const sockets: net.Socket[] = [];
  const answers: Promise<number>[] = [];
  for (let i = 0; i < count; i++) {
    const socket = net.connect(port, '127.0.0.1');
    sockets.push(socket);
    answers.push(
      new Promise<number>((resolve) => {
        let head = '';
        socket.on('error', () => resolve(0));
        socket.on('close', () => resolve(0));
        socket.on('data', (data) => {
          head += String(data);
          const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
          if (status) resolve(Number(status[1]));
        });
        socket.once('connect', () =>
          socket.write(
            `GET /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${SERVE_TOKEN}\r\nConnection: keep-alive\r\n\r\n`,
          ),
        );
      }),
    );
    // Engaged one by one: each sends its request before the next connects, as a pool's do.
    await answers[i];
  }
  return { statuses: await Promise.all(answers), sockets };
}

describe('skate serve: connection caps follow the session and run caps', () => {
  it('lets one client hold a stream per session and per run when --max-sessions and --max-runs are raised; an explicit --max-connections-per-address still holds', async () => {
    await using ws = await hostDir('serve-caps-');
    // 70 sessions and 10 runs: 96 connections per address by default (sessions + runs + 16), not 64.
    await using raised = await startSkateServe(
      ['--workspace', ws.path, '--max-sessions', '70', '--max-runs', '10'],
      ENV,
    );
    const port = Number(new URL(raised.url).port);
    const pool = await keepAliveClients(port, 90);
    try {
      expect(pool.statuses.filter((status) => status === 200)).toHaveLength(90);
      // Every one still open on the client's side: none was closed to make room for another.
      expect(pool.sockets.filter((socket) => !socket.destroyed)).toHaveLength(90);
    } finally {
      for (const socket of pool.sockets) socket.destroy();
    }

    // Given explicitly, the cap is the user's: past 64 engaged connections, the next ones are closed unanswered.
    await using capped = await startSkateServe(
      [
        '--workspace',
        ws.path,
        '--max-sessions',
        '70',
        '--max-runs',
        '10',
        '--max-connections-per-address',
        '64',
      ],
      ENV,
    );
    const cappedPool = await keepAliveClients(Number(new URL(capped.url).port), 70);
    try {
      expect(cappedPool.statuses.slice(0, 64).every((status) => status === 200)).toBe(true);
      expect(cappedPool.statuses.slice(64)).toEqual([0, 0, 0, 0, 0, 0]);
    } finally {
      for (const socket of cappedPool.sockets) socket.destroy();
    }
  });
});
