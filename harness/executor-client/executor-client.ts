import type { ChildProcess } from 'node:child_process';
import type { ExecutorHealth } from '../../shared/executor-boot.js';
import type { McpBootServer } from '../../shared/mcp-servers.js';
import type { EnforcementLevel, ResolvedPolicy } from '../../shared/policy.js';
import type { OutputLine, ToolDefinition, ToolResult } from '../../shared/tool.js';
import type { ExecutorLauncher } from '../sandbox/executor-launch.js';
import { ExecutorChannelError, executorErrorFromUnknown } from './executor-errors.js';
import { type ExecutorExit, startExecutorProcess } from './executor-process.js';
import { createExecutorTrpc, type ExecutorTrpc } from './executor-trpc.js';
import { type FrameChannel, webSocketChannel } from './frame-channel.js';
import { watchLate } from './late-output.js';
import { RpcClient } from './rpc-client.js';

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
const DEFAULT_STARTUP_TIMEOUT_MS = 15_000;
/** After a result, how long trailing output lines may take to arrive. */
const OUTPUT_DRAIN_MS = 1_000;

export interface SpawnExecutorOptions {
  policy: ResolvedPolicy;
  launcher?: ExecutorLauncher;
  /** Offer the `noop` and `emit_lines` diagnostic tools (tests and benchmarks). */
  diagnosticTools?: boolean;
  maxFrameBytes?: number;
  startupTimeoutMs?: number;
  /** Each line the executor writes to stderr. */
  onLog?(line: string): void;
  /** Start a new executor when this one dies unexpectedly, up to this many times. Default 0. */
  restartsOnExit?: number;
  /** How long a cancelled call may take to be confirmed before it is given up. Default 5 s. */
  cancelGraceMs?: number;
  /**
   * Called once the process is spawned, before it is ready: the caller's own start-up work
   * (loading the SDK, say) runs then, overlapping the executor's start instead of delaying it.
   */
  onSpawned?(): void;
  /**
   * The tools this executor is expected to list (what one listed last time under the same policy,
   * build and Node): `listTools` answers with them until the executor's own list has come.
   */
  expectedTools?: ToolDefinition[];
  /** Run this MCP server as the executor's child and offer its tools instead of the executor's own. */
  mcpServer?: McpBootServer;
}

/** An executor spawned but perhaps not ready yet: `ready` settles once it has listed its tools. */
export interface LaunchedExecutor {
  client: ExecutorClient;
  /** The executor's own tool list; rejects when it failed to start (it is then killed). */
  ready: Promise<ToolDefinition[]>;
}

export interface ConnectExecutorOptions {
  token: string;
  maxFrameBytes?: number;
  startupTimeoutMs?: number;
}

export interface CallToolOptions {
  /** Cancels the call; the executor's own account of the cancellation is returned when it comes in time. */
  signal?: AbortSignal;
  /** Receives the call's output lines as they are produced. */
  onOutput?(line: OutputLine): void;
}

/** One live connection: a process (or remote socket), its channel and the tRPC client over it. */
interface Connection {
  readonly rpc: RpcClient;
  readonly trpc: ExecutorTrpc;
  readonly channel: FrameChannel;
  readonly child: ChildProcess | undefined;
  readonly exited: Promise<ExecutorExit>;
  readonly enforcement: EnforcementLevel;
}

/**
 * The harness's only way to tools: a tRPC client connected to an executor
 * process. It spawns (or connects to) the executor, caches its tool list,
 * calls tools with cancellation and output streaming, notices the executor's
 * death and can start a replacement.
 */
export class ExecutorClient {
  private connection: Connection;
  private toolsCache: Promise<ToolDefinition[]> | undefined;
  /** Listed in place of the executor's own tools while it starts (`expectedTools`). */
  private expectedTools: ToolDefinition[] | undefined;
  /** The first start, while it is under way: calls wait for it, and fail as it failed. */
  private booting: Promise<unknown> | undefined;
  private callSeq = 0;
  private readonly exitListeners = new Set<
    (exit: ExecutorExit, expected: boolean, replacement: Promise<void> | undefined) => void
  >();
  /** Set once shutdown or kill is asked for: an exit after that is expected. */
  private closing = false;
  /** A replacement being started after an unexpected exit; calls wait for it. */
  private restarting: Promise<void> | undefined;

  private constructor(
    connection: Connection,
    private readonly respawn: (() => Promise<Connection>) | undefined,
    private restartsLeft: number,
  ) {
    this.connection = connection;
    this.watch(connection);
  }

  /** Starts an executor process under `policy` and waits until it answers. */
  static async spawn(options: SpawnExecutorOptions): Promise<ExecutorClient> {
    const { client, ready } = await ExecutorClient.launch(options);
    await ready;
    return client;
  }

  /**
   * Starts an executor process under `policy` and returns once it runs, before it is ready: the
   * caller can go on (with `expectedTools`, even ask a model) while it boots. Tool calls made
   * meanwhile wait for it, and fail as its start failed.
   */
  static async launch(options: SpawnExecutorOptions): Promise<LaunchedExecutor> {
    const start = () => startProcess(options);
    const client = new ExecutorClient(await start(), start, options.restartsOnExit ?? 0);
    options.onSpawned?.();
    client.expectedTools = options.expectedTools;
    const ready = client.ready(options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS).finally(() => {
      client.expectedTools = undefined;
      client.booting = undefined;
    });
    client.booting = ready.catch(() => undefined);
    return { client, ready };
  }

  /** Connects to an executor served by `skate executor serve` on another host or in a container. */
  static async connect(url: string, options: ConnectExecutorOptions): Promise<ExecutorClient> {
    const start = () => openRemote(url, options);
    const client = new ExecutorClient(await start(), start, 0);
    await client.ready(options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS);
    return client;
  }

  get pid(): number | undefined {
    return this.connection.child?.pid;
  }

  /** Settles once the first start is over (ready, or failed: calls then fail as it failed). */
  async whenStarted(): Promise<void> {
    await this.booting;
  }

  get enforcement(): EnforcementLevel {
    return this.connection.enforcement;
  }

  /**
   * Calls `listener` whenever the current executor ends; `expected` after shutdown or kill;
   * `replacement` while a new one is being started in its place (settles once it is up or failed).
   */
  onExit(
    listener: (exit: ExecutorExit, expected: boolean, replacement: Promise<void> | undefined) => void,
  ): () => void {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** The executor's tools, fetched once per executor (while it starts, the tools expected of it). */
  async listTools(): Promise<ToolDefinition[]> {
    await this.restarting;
    return this.expectedTools ?? this.fetchTools();
  }

  /**
   * Calls `onChange` with the executor's tools (being listed) each time a line comes on `stream` (an MCP server's
   * executor says so when the server's list changed: `MCP_TOOLS_CHANGED_STREAM`). Ends with the
   * executor; the returned function ends it sooner.
   */
  watchTools(stream: string, onChange: (tools: Promise<ToolDefinition[]>) => void): () => void {
    const subscription = this.connection.trpc.toolOutput.subscribe(
      { callId: stream },
      {
        // Synchronously, with the listing on its way: a call whose result comes next can wait for it.
        onData: () => {
          this.toolsCache = undefined;
          this.expectedTools = undefined;
          onChange(this.fetchTools());
        },
        onError: () => undefined,
      },
    );
    return () => subscription.unsubscribe();
  }

  /** Whether a tool streams output; true when unknown, so no line is lost. */
  private async streams(name: string): Promise<boolean> {
    const tools = await this.fetchTools().catch(() => undefined);
    return tools?.find((tool) => tool.name === name)?.streamsOutput ?? true;
  }

  private fetchTools(): Promise<ToolDefinition[]> {
    this.toolsCache ??= this.connection.trpc.listTools.query().catch((error: unknown) => {
      this.toolsCache = undefined;
      throw executorErrorFromUnknown(error);
    });
    return this.toolsCache;
  }

  /**
   * Runs one tool. A tool's failure (denied, bad input, unknown tool, cancelled)
   * is a result with `isError`; only a broken channel or a dead executor throws,
   * as an `ExecutorChannelError` or `ExecutorRpcError`.
   */
  async callTool(name: string, input: unknown, options: CallToolOptions = {}): Promise<ToolResult> {
    await this.booting;
    await this.restarting;
    const { trpc } = this.connection;
    const callId = `call-${++this.callSeq}`;
    let outputDone: Promise<void> | undefined;
    let stopOutput: (() => void) | undefined;
    // A subscription costs three more frames per call: only for tools that stream (or unknown ones).
    if (options.onOutput && (await this.streams(name))) {
      const onData = options.onOutput;
      outputDone = new Promise<void>((resolve) => {
        const subscription = trpc.toolOutput.subscribe(
          { callId },
          { onData, onStopped: resolve, onComplete: resolve, onError: () => resolve() },
        );
        stopOutput = () => {
          subscription.unsubscribe();
          resolve();
        };
      });
    } else if (options.onOutput) {
      // Any other call is watched only once it runs long: an MCP server's progress, say.
      const onData = options.onOutput;
      stopOutput = watchLate(() => {
        const subscription = trpc.toolOutput.subscribe({ callId }, { onData, onError: () => undefined });
        return () => subscription.unsubscribe();
      });
    }
    try {
      const result = await trpc.callTool.mutate(
        { callId, name, input },
        options.signal ? { signal: options.signal } : undefined,
      );
      if (outputDone) await withTimeout(outputDone, OUTPUT_DRAIN_MS);
      return result;
    } catch (error) {
      const failure = executorErrorFromUnknown(error);
      if (failure instanceof ExecutorChannelError && failure.code === 'cancelled') {
        return {
          output: `${name} was cancelled; the executor did not confirm in time`,
          isError: true,
          code: 'cancelled',
        };
      }
      throw failure;
    } finally {
      stopOutput?.();
    }
  }

  async health(): Promise<ExecutorHealth> {
    await this.restarting;
    try {
      return await this.connection.trpc.health.query();
    } catch (error) {
      throw executorErrorFromUnknown(error);
    }
  }

  /** Asks the executor to stop, waits for it, and kills it if it does not go in time. */
  async shutdown(timeoutMs = 3_000): Promise<ExecutorExit> {
    this.closing = true;
    await this.restarting?.catch(() => undefined);
    const { trpc, channel, child, exited } = this.connection;
    if (child && child.exitCode === null && child.signalCode === null) {
      await withTimeout(
        trpc.shutdown.mutate().catch(() => undefined),
        timeoutMs,
      );
    }
    channel.close();
    const timer = setTimeout(() => child?.kill('SIGKILL'), timeoutMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Kills the executor at once. */
  kill(): void {
    this.closing = true;
    this.connection.child?.kill('SIGKILL');
    this.connection.channel.close();
  }

  /** Replaces a dead (or live) executor with a fresh one under the same options. */
  async restart(): Promise<void> {
    if (!this.respawn) throw new ExecutorChannelError('closed', 'this executor cannot be restarted');
    this.closing = false;
    const old = this.connection;
    old.child?.kill('SIGKILL');
    old.channel.close();
    this.connection = await this.respawn();
    this.toolsCache = undefined;
    this.watch(this.connection);
    await this.ready(DEFAULT_STARTUP_TIMEOUT_MS);
  }

  private watch(connection: Connection): void {
    void connection.exited.then((exit) => {
      if (this.connection !== connection) return;
      const expected = this.closing;
      if (!this.closing && this.restartsLeft > 0 && !this.restarting) {
        this.restartsLeft--;
        // The call that was running when it died has failed; later calls go to the replacement.
        this.restarting = this.restart()
          .catch(() => undefined)
          .finally(() => {
            this.restarting = undefined;
          });
      }
      for (const listener of this.exitListeners) listener(exit, expected, this.restarting);
    });
  }

  private async ready(timeoutMs: number): Promise<ToolDefinition[]> {
    // Not listTools(): during a restart that would wait for the restart itself.
    const tools = await withTimeout(this.fetchTools(), timeoutMs);
    if (!tools) {
      this.kill();
      throw new ExecutorChannelError('startup_timeout', `executor did not answer within ${timeoutMs} ms`);
    }
    return tools;
  }
}

function withTimeout<T, F = undefined>(promise: Promise<T>, ms: number, fallback?: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback as F), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function createConnection(
  channelFor: (rpc: RpcClient) => FrameChannel,
  maxFrameBytes: number,
  onStray: (message: string) => void,
): { rpc: RpcClient; channel: FrameChannel; trpc: ExecutorTrpc } {
  let channel: FrameChannel | undefined;
  const rpc = new RpcClient((frame) => channel?.send(frame), maxFrameBytes, onStray);
  channel = channelFor(rpc);
  const trpc = createExecutorTrpc(rpc);
  return { rpc, channel, trpc };
}

async function startProcess(options: SpawnExecutorOptions): Promise<Connection> {
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  let rpc: RpcClient | undefined;
  const executor = await startExecutorProcess(
    {
      policy: options.policy,
      maxFrameBytes,
      ...(options.launcher && { launcher: options.launcher }),
      ...(options.diagnosticTools && { diagnosticTools: true }),
      ...(options.onLog && { onLog: options.onLog }),
      ...(options.mcpServer && { mcpServer: options.mcpServer }),
    },
    {
      frame: (text) => rpc?.receive(text),
      oversized: (bytes) => options.onLog?.(`executor sent an oversized frame (${bytes} bytes); skipped`),
    },
  );
  rpc = new RpcClient(
    (frame) => executor.channel.send(frame),
    maxFrameBytes,
    (message) => options.onLog?.(message),
  );
  const connectedRpc = rpc;
  void executor.exited.then((exit) => connectedRpc.failAll(new ExecutorChannelError('exited', exit.reason)));
  return {
    rpc,
    trpc: createExecutorTrpc(rpc, options.cancelGraceMs),
    channel: executor.channel,
    child: executor.child,
    exited: executor.exited,
    enforcement: executor.enforcement,
  };
}

async function openRemote(url: string, options: ConnectExecutorOptions): Promise<Connection> {
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  // Only remote executors need ws (128 KB of the CLI's code): loaded here, not with every run.
  const { default: WebSocket } = await import('ws');
  const socket = new WebSocket(url, {
    headers: { authorization: `Bearer ${options.token}` },
    maxPayload: maxFrameBytes,
    perMessageDeflate: false,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('unexpected-response', (_request, response) =>
      reject(
        new ExecutorChannelError(
          response.statusCode === 401 ? 'closed' : 'spawn_failed',
          `executor at ${url} refused the connection: HTTP ${response.statusCode}`,
        ),
      ),
    );
    socket.once('error', (error) =>
      reject(
        new ExecutorChannelError('spawn_failed', `cannot reach the executor at ${url}: ${error.message}`),
      ),
    );
  });
  let resolveExit!: (exit: ExecutorExit) => void;
  const exited = new Promise<ExecutorExit>((resolve) => {
    resolveExit = resolve;
  });
  const { rpc, channel, trpc } = createConnection(
    (rpc) =>
      webSocketChannel(socket, {
        frame: (text) => rpc.receive(text),
        closed: (reason) => resolveExit({ code: null, signal: null, reason: `remote executor: ${reason}` }),
      }),
    maxFrameBytes,
    () => undefined,
  );
  void exited.then((exit) => rpc.failAll(new ExecutorChannelError('exited', exit.reason)));
  // The remote end reports its own enforcement through `health`; until asked, claim nothing.
  return { rpc, trpc, channel, child: undefined, exited, enforcement: 'none' };
}
