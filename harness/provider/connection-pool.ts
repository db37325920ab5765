import * as http from 'node:http';
import * as https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { traceStart } from '../start-trace.js';

/** `node:http` or `node:https`: the two have the same shape for what is used here. */
export type HttpModule = Pick<typeof http, 'Agent' | 'request'>;

/**
 * Kept-alive agents, one per protocol, that can open a connection ahead of the first request.
 * `node:https` (and TLS) load with this module, while the executor boots: the API is https, and
 * on an http base URL they cost ~1 ms of CPU here.
 */
export interface ConnectionPool {
  /** The module and keep-alive agent for a URL's protocol. */
  forUrl(url: URL): { module: HttpModule; agent: http.Agent };
  /**
   * Opens a connection to `origin` (TCP, and TLS for https) that the next request to it
   * takes instead of connecting then; settles once connected or failed, never rejects.
   * Sends nothing. Closed when unused for IDLE_MS or when the server closes it first;
   * it never keeps the process alive.
   */
  preconnect(origin: URL): Promise<void>;
}

/**
 * Node's own global agent keeps idle connections 5 s (`keepAlive`, `timeout: 5000`): the same
 * here, for kept-alive sockets and for a pre-opened one waiting for its first request.
 */
const IDLE_MS = 5_000;

/**
 * `NODE_USE_ENV_PROXY=1`: Node 24 then sends its fetch and its global agents' requests through
 * HTTP_PROXY/HTTPS_PROXY (minus NO_PROXY); these agents do the same with `proxyEnv`, an option
 * older Nodes ignore (as their fetch ignored proxies). Nothing is opened ahead through a proxy.
 */
const proxied = Boolean(process.env.NODE_USE_ENV_PROXY);

const AGENT_OPTIONS: http.AgentOptions = {
  keepAlive: true,
  scheduling: 'lifo',
  timeout: IDLE_MS,
  ...(proxied && { proxyEnv: process.env }),
};

interface Spare {
  key: string;
  socket: Socket;
  release: () => void;
}

export function createConnectionPool(): ConnectionPool {
  const agents = new Map<HttpModule, http.Agent>();
  let spare: Spare | undefined;

  /** The spare socket for `host:port`, detached from its watchers, if it is still good. */
  function takeSpare(key: string): Socket | undefined {
    if (spare?.key !== key) return undefined;
    const { socket, release } = spare;
    spare = undefined;
    release();
    if (socket.destroyed || socket.readableEnded || !socket.writable) return undefined;
    socket.ref();
    return socket;
  }

  function makeAgent(module: HttpModule): http.Agent {
    const agent = new module.Agent(AGENT_OPTIONS);
    const connect = agent.createConnection.bind(agent);
    // The agent calls this when it has no idle socket for a request: the spare goes first.
    agent.createConnection = (options, callback) => {
      const socket = takeSpare(keyOf(options.host ?? options.hostname, options.port));
      if (socket) return socket;
      return traced(connect(options, callback) as Socket);
    };
    return agent;
  }

  function forUrl(url: URL): { module: HttpModule; agent: http.Agent } {
    const module = url.protocol === 'https:' ? https : http;
    let agent = agents.get(module);
    if (!agent) {
      agent = makeAgent(module);
      agents.set(module, agent);
    }
    return { module, agent };
  }

  /** Opens the connection at once (synchronously), then settles once it is up or failed. */
  async function preconnect(origin: URL): Promise<void> {
    const { agent } = forUrl(origin);
    // Once a request has connected (or a spare waits), there is nothing to open ahead.
    if (proxied || spare || Object.keys(agent.sockets).length + Object.keys(agent.freeSockets).length > 0)
      return;
    const port = portOf(origin);
    const key = keyOf(origin.hostname, port);
    const host = unbracket(origin.hostname);
    const options = {
      ...AGENT_OPTIONS,
      host,
      port,
      ...(origin.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
    };
    const socket = agent.createConnection(options) as Socket;
    // Until a request takes it: never the reason the process stays up, and gone on any sign of trouble.
    socket.unref();
    socket.resume();
    const drop = (): void => {
      if (spare?.socket === socket) spare = undefined;
      socket.destroy();
    };
    const idle = setTimeout(drop, IDLE_MS).unref();
    // An HTTP server never speaks first: data here means this connection is not one to use.
    const events = ['error', 'end', 'close', 'data'] as const;
    for (const event of events) socket.on(event, drop);
    const release = (): void => {
      clearTimeout(idle);
      for (const event of events) socket.off(event, drop);
    };
    spare = { key, socket, release };
    const secure = origin.protocol === 'https:';
    await new Promise<void>((resolve) => {
      socket.once(secure ? 'secureConnect' : 'connect', resolve);
      socket.once('close', resolve);
    });
  }

  return { forUrl, preconnect };
}

/** Marks a new connection's steps in the start trace (`SKATE_TRACE_START`). */
function traced(socket: Socket): Socket {
  traceStart('http: connecting');
  const secure = 'encrypted' in socket;
  socket.once(secure ? 'secureConnect' : 'connect', () => traceStart('http: connected'));
  return socket;
}

function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

function keyOf(host: string | null | undefined, port: string | number | null | undefined): string {
  return `${unbracket(host ?? 'localhost')}:${port}`;
}

/** `[::1]` as a URL spells it, `::1` as a socket wants it. */
function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
