import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import {
  type ClientContext,
  client,
  methods,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { distPath } from '../../harness/project-paths.js';

/** An editor driving `skate acp` as a child process with the ACP SDK's own client. */
export interface AcpEditor extends AsyncDisposable {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every `session/update` so far, in order. */
  readonly updates: SessionNotification[];
  readonly permissions: RequestPermissionRequest[];
  /** Option ids to choose for the next permission requests, in order; `allow_once` when none is left. */
  readonly choices: string[];
  /** Connects, initializes, runs `op`, then closes the connection. */
  run<T>(op: (ctx: ClientContext) => Promise<T>): Promise<T>;
  /** Resolves with the first update (already received or still to come) that `match` accepts. */
  waitForUpdate(match: (notification: SessionNotification) => boolean): Promise<SessionNotification>;
  stderr(): string;
}

/** `cwd`: where the editor starts `skate acp` (the workspace of the servers in your settings). */
export function startAcpEditor(args: string[], env: NodeJS.ProcessEnv, cwd?: string): AcpEditor {
  const child = spawn(process.execPath, [distPath('cli', 'skate.js'), 'acp', ...args], {
    env,
    ...(cwd && { cwd }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const choices: string[] = [];
  const waiters: { match: (n: SessionNotification) => boolean; resolve: (n: SessionNotification) => void }[] =
    [];

  const app = client({ name: 'skate-test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
      for (const waiter of [...waiters]) {
        if (waiter.match(params)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(params);
        }
      }
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: 'selected', optionId: choices.shift() ?? 'allow_once' } };
    });

  return {
    child,
    updates,
    permissions,
    choices,
    stderr: () => stderr,
    run(op) {
      const stream = ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      );
      return app.connectWith(stream, async (ctx) => {
        await ctx.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: {},
        });
        return op(ctx);
      });
    },
    waitForUpdate(match) {
      const seen = updates.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
