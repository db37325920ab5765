import { type ChildProcess, spawn } from 'node:child_process';
import type net from 'node:net';
import { distPath } from '../project-paths.js';

/**
 * The kernel-side data path of the allowlist proxy (issue #21): once the proxy has admitted a
 * connection (every check done) and connected upstream, it hands both sockets to
 * `skate-confine --splice-channel`, a helper on the host that joins them with splice(2), so a
 * tunnel's bytes never cross the harness's event loop. Nothing crosses into a sandbox: the helper
 * runs outside every sandbox, beside the harness, and gets only the two sockets of tunnels the
 * proxy admitted.
 */
export interface SpliceRelay {
  /**
   * Hands an admitted tunnel over: `toUpstream` and `toClient` are written first (what the proxy
   * still holds for each side). False when it cannot (the helper is gone, or Node still holds
   * unwritten bytes for a socket): the caller relays the tunnel itself.
   */
  hand(client: net.Socket, upstream: net.Socket, toUpstream: Buffer, toClient: Buffer): boolean;
  /** Tunnels the helper holds now. */
  open(): number;
  /** Ends the helper and every tunnel it holds. */
  close(): Promise<void>;
}

/** Bytes passed with a handle at most (the helper reads lines of 64 KiB; base64 grows them by a third). */
const MAX_FIRST_BYTES = 32 * 1024;

interface Handle {
  readStop?: () => number;
  writeQueueSize?: number;
}

/** Node's socket handle, for what no public API does: stop reading before the descriptor leaves. */
const handleOf = (socket: net.Socket): Handle | undefined =>
  (socket as unknown as { _handle?: Handle | null })._handle ?? undefined;

/** Starts the helper; undefined when it cannot start (no native build): the proxy relays in Node. */
export function startSpliceRelay(idleTimeoutMs: number): SpliceRelay | undefined {
  let helper: ChildProcess;
  try {
    helper = spawn(distPath('bin', 'skate-confine'), ['--splice-channel', String(idleTimeoutMs)], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: {},
    });
  } catch {
    return undefined;
  }
  // Held by the client sockets until the helper says their tunnel ended (the proxy's connection cap counts them).
  const held = new Map<number, net.Socket>();
  let nextId = 1;
  let alive = true;
  const ended = new Promise<void>((resolve) => helper.once('exit', () => resolve()));
  const endAll = (): void => {
    alive = false;
    for (const client of held.values()) client.destroy();
    held.clear();
  };
  helper.on('error', endAll);
  helper.once('exit', endAll);
  helper.on('message', (message: { skate?: string; id?: number }) => {
    if (message?.skate !== 'closed' || typeof message.id !== 'number') return;
    held.get(message.id)?.destroy();
    held.delete(message.id);
  });
  helper.unref();
  helper.channel?.unref();

  /** What Node has read from `socket` and nobody consumed yet. */
  const drain = (socket: net.Socket): Buffer[] => {
    const parts: Buffer[] = [];
    for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null)
      parts.push(chunk);
    return parts;
  };

  return {
    hand(client, upstream, toUpstream, toClient) {
      if (!alive || !helper.connected) return false;
      const handles = [handleOf(client), handleOf(upstream)];
      const unwritten = (socket: net.Socket, handle: Handle | undefined): boolean =>
        socket.writableLength > 0 || (handle?.writeQueueSize ?? 0) > 0;
      if (handles.some((handle) => handle?.readStop === undefined)) return false;
      if (unwritten(client, handles[0]) || unwritten(upstream, handles[1])) return false;
      // All in this tick: what Node read is taken, reading stops, the descriptors leave. No read
      // can land in between (libuv reads only when the loop turns), so no byte is lost or reordered.
      const fromClient = drain(client);
      const fromUpstream = drain(upstream);
      const size = [toUpstream, toClient, ...fromClient, ...fromUpstream].reduce((n, b) => n + b.length, 0);
      if (size > MAX_FIRST_BYTES) {
        // Too much to pass in one message: put it back and let the caller relay this one.
        if (fromClient.length > 0) client.unshift(Buffer.concat(fromClient));
        if (fromUpstream.length > 0) upstream.unshift(Buffer.concat(fromUpstream));
        return false;
      }
      for (const handle of handles) handle!.readStop!();
      // Sent as a plain socket: for one of a server's, Node would count it as handed to a cluster
      // worker and make the server's close wait for that worker. `_server` still counts it until
      // the JS socket is destroyed, when the tunnel ends.
      (client as unknown as { server: unknown }).server = null;
      const id = nextId++;
      const first = (parts: Buffer[]): string => Buffer.concat(parts).toString('base64');
      helper.send({ skate: 'splice', id, side: 'client', first: first([toClient, ...fromUpstream]) }, client);
      // A handle waits for the one before it to be acknowledged: the JS socket lets go once sent.
      helper.send(
        { skate: 'splice', id, side: 'upstream', first: first([toUpstream, ...fromClient]) },
        upstream,
        () => upstream.destroy(),
      );
      // The client socket stays counted (the proxy's connection cap) until the tunnel ends.
      held.set(id, client);
      return true;
    },
    open: () => held.size,
    async close() {
      if (helper.exitCode === null && helper.signalCode === null) helper.kill('SIGKILL');
      await ended;
    },
  };
}
