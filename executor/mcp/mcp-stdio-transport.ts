import { type ChildProcess, spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineSplitter } from '../../shared/line-splitter.js';
import { parseJsonRpcMessage } from './check-jsonrpc-message.js';

export interface McpStdioTransportOptions {
  command: string;
  args: readonly string[];
  /** Added to the SDK's default environment (HOME, PATH and the like, from the executor's own). */
  env: Record<string, string>;
  cwd: string;
  /** Largest line the server may send; past it the transport fails and closes, as the SDK's does. */
  maxLineBytes?: number;
}

/** How long `close` waits for the server to go after its stdin ends, then after SIGTERM. */
const CLOSE_GRACE_MS = 2_000;

/**
 * The SDK's `StdioClientTransport` for one server, as the executor runs it: the same process
 * (spawned with the same environment, stdin/stdout the channel, stderr piped), the same
 * bound on a line, the same close (stdin ended, then SIGTERM, then SIGKILL), each message
 * checked against the SDK's own schema (`parseJsonRpcMessage`). It differs in the cost per
 * message: lines are split without re-concatenating a buffer per chunk, and the common messages
 * are checked by hand before the schema is asked.
 */
export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The server's stderr, there before `start` so that nothing it writes early is lost. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  private readonly splitter: LineSplitter;

  constructor(private readonly options: McpStdioTransportOptions) {
    const limit = options.maxLineBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
    this.splitter = new LineSplitter(
      limit,
      (line) => this.receive(line),
      (bytes) => {
        this.onerror?.(new Error(`the server sent a message of ${bytes} bytes; the limit is ${limit}`));
        void this.close().catch(() => undefined);
      },
    );
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('McpStdioTransport already started');
    const { command, args, env, cwd } = this.options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        env: { ...getDefaultEnvironment(), ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        cwd,
      });
      this.child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.splitter.push(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error('Not connected'));
    if (stdin.write(`${JSON.stringify(message)}\n`)) return Promise.resolve();
    return new Promise((resolve) => stdin.once('drain', resolve));
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const within = (): Promise<void> =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // Already gone.
    }
    await within();
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await within();
    }
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  private receive(line: string): void {
    let message: JSONRPCMessage;
    try {
      // The SDK's reader drops a line's trailing carriage return too.
      message = parseJsonRpcMessage(JSON.parse(line.endsWith('\r') ? line.slice(0, -1) : line));
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }
}
