import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { distPath } from '../project-paths.js';

/**
 * The kernel-side data path of the allowlist proxy (issue #21): once the proxy has admitted a
 * connection (every check done, the address resolved), it hands the client's socket and that
 * address to `skate-confine --splice-channel`, a helper on the host that connects upstream itself
 * and joins the two sockets with splice(2), so a tunnel's bytes never cross the harness's event
 * loop and setting one up costs one message. Nothing crosses into a sandbox: the helper runs
 * outside every sandbox, beside the harness, and gets only the client sockets of tunnels the
 * proxy admitted; the upstream socket is made there and never leaves it.
 *
 * Given a hand-off socket, the helper also takes the connections the sandbox's forwarder accepted
 * (their TCP sockets, checked there: see executor/native/socket-handoff.h) and passes each to
 * `onClient`, so the proxy reads the client's own socket and the forwarder carries no byte.
 */
export interface SpliceRelay {
  /**
   * Hands an admitted tunnel over: the helper connects to `target` (an IP address the proxy
   * checked), writes `200 Connection Established` to the client first when `reply`, then
   * `toUpstream` upstream; a failed connect answers 502 when `badGateway`, else closes. False
   * when it cannot (the helper is gone, the address is not a plain IP literal, or Node still
   * holds unwritten bytes for the client): the caller opens the tunnel itself.
   */
  hand(client: net.Socket, target: { address: string; port: number }, owed: TunnelOwed): boolean;
  /** Tunnels the helper holds now. */
  open(): number;
  /** Whether the helper listens on the hand-off socket. */
  readonly handoff: boolean;
  /** Ends the helper and every tunnel it holds. */
  close(): Promise<void>;
}

/** What a tunnel owes before its bytes flow: the CONNECT's answer, and bytes for the upstream. */
export interface TunnelOwed {
  reply: boolean;
  badGateway: boolean;
  toUpstream: Buffer;
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

export interface SpliceRelayOptions {
  idleTimeoutMs: number;
  connectTimeoutMs: number;
  /** Where the helper listens for the sandbox's forwarder (a path on the host), with where its connections go. */
  handoff?: { path: string; onClient: (client: net.Socket) => void };
}

/** How long the helper may take to say it is ready before the proxy goes on without it. */
const READY_TIMEOUT_MS = 5_000;

/** Starts the helper; undefined when it cannot start (no native build): the proxy relays in Node. */
export async function startSpliceRelay(options: SpliceRelayOptions): Promise<SpliceRelay | undefined> {
  let helper: ChildProcess;
  try {
    const args = ['--splice-channel', String(options.idleTimeoutMs), String(options.connectTimeoutMs)];
    if (options.handoff) args.push(options.handoff.path);
    helper = spawn(distPath('bin', 'skate-confine'), args, {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: {},
    });
  } catch {
    return undefined;
  }
  // Held by the client sockets until the helper says their tunnel ended (the proxy's connection cap counts them).
  const held = new Map<number, net.Socket>();
  // Clients that came through the hand-off socket and are still the proxy's: ended with the helper.
  const received = new Set<net.Socket>();
  let nextId = 1;
  let alive = true;
  let handoff = false;
  let ready: () => void = () => undefined;
  const readied = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const ended = new Promise<void>((resolve) => helper.once('exit', () => resolve()));
  const endAll = (): void => {
    alive = false;
    ready();
    for (const client of [...held.values(), ...received]) client.destroy();
    held.clear();
    received.clear();
  };
  helper.on('error', endAll);
  helper.once('exit', endAll);
  helper.on('message', (message: { skate?: string; id?: number; handoff?: number }, handle?: unknown) => {
    if (message?.skate === 'client') {
      // A connection the forwarder passed out of the sandbox, checked by the helper as a connected TCP socket.
      if (!(handle instanceof net.Socket)) return;
      if (!alive || !options.handoff) {
        handle.destroy();
        return;
      }
      received.add(handle);
      handle.once('close', () => received.delete(handle));
      options.handoff.onClient(handle);
      return;
    }
    if (message?.skate === 'ready') {
      handoff = message.handoff === 1;
      ready();
      return;
    }
    if (message?.skate !== 'closed' || typeof message.id !== 'number') return;
    held.get(message.id)?.destroy();
    held.delete(message.id);
  });
  helper.unref();
  helper.channel?.unref();
  const timer = setTimeout(ready, READY_TIMEOUT_MS);
  await readied;
  clearTimeout(timer);
  if (!alive) return undefined;

  /** What Node has read from `socket` and nobody consumed yet. */
  const drain = (socket: net.Socket): Buffer[] => {
    const parts: Buffer[] = [];
    for (let chunk = socket.read() as Buffer | null; chunk !== null; chunk = socket.read() as Buffer | null)
      parts.push(chunk);
    return parts;
  };

  return {
    hand(client, target, owed) {
      if (!alive || !helper.connected) return false;
      // A zone id (`fe80::1%eth0`) or anything but a plain literal: opened in Node instead.
      if (net.isIP(target.address) === 0 || target.address.includes('%')) return false;
      const handle = handleOf(client);
      if (handle?.readStop === undefined) return false;
      if (client.writableLength > 0 || (handle.writeQueueSize ?? 0) > 0) return false;
      // All in this tick: what Node read is taken, reading stops, the descriptor leaves. No read
      // can land in between (libuv reads only when the loop turns), so no byte is lost or reordered.
      const fromClient = drain(client);
      const first = Buffer.concat([owed.toUpstream, ...fromClient]);
      if (first.length > MAX_FIRST_BYTES) {
        // Too much to pass in one message: put it back and let the caller open this one.
        if (fromClient.length > 0) client.unshift(Buffer.concat(fromClient));
        return false;
      }
      handle.readStop();
      // Sent as a plain socket: for one of a server's, Node would count it as handed to a cluster
      // worker and make the server's close wait for that worker. `_server` still counts it until
      // the JS socket is destroyed, when the tunnel ends.
      (client as unknown as { server: unknown }).server = null;
      const id = nextId++;
      helper.send(
        {
          skate: 'tunnel',
          id,
          address: target.address,
          port: target.port,
          reply: owed.reply ? 1 : 0,
          badGateway: owed.badGateway ? 1 : 0,
          first: first.toString('base64'),
        },
        client,
      );
      // The client socket stays counted (the proxy's connection cap) until the tunnel ends.
      held.set(id, client);
      return true;
    },
    open: () => held.size,
    get handoff() {
      return handoff && alive;
    },
    async close() {
      if (helper.exitCode === null && helper.signalCode === null) helper.kill('SIGKILL');
      await ended;
    },
  };
}
