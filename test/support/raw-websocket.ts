import { randomBytes } from 'node:crypto';
import net from 'node:net';

/** One WebSocket frame as a peer may write it, well-formed or not (RFC 6455 §5.2). */
export interface RawFrame {
  opcode: number;
  payload: Buffer;
  fin?: boolean;
  /** The three reserved bits, 0–7. */
  rsv?: number;
  /** Clients must mask; default true. */
  mask?: boolean;
  /** The length the header claims, when it is to differ from the payload's. */
  declaredLength?: number;
}

/** The bytes of a frame: header, masking key, (masked) payload. */
export function encodeFrame(frame: RawFrame): Buffer {
  const { opcode, payload, fin = true, rsv = 0, mask = true } = frame;
  const length = frame.declaredLength ?? payload.length;
  const head: number[] = [(fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0f)];
  const maskBit = mask ? 0x80 : 0;
  let extended = Buffer.alloc(0);
  if (length < 126) {
    head.push(maskBit | length);
  } else if (length < 65_536) {
    head.push(maskBit | 126);
    extended = Buffer.alloc(2);
    extended.writeUInt16BE(length);
  } else {
    head.push(maskBit | 127);
    extended = Buffer.alloc(8);
    extended.writeBigUInt64BE(BigInt(length));
  }
  if (!mask) return Buffer.concat([Buffer.from(head), extended, payload]);
  const key = randomBytes(4);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i]! ^= key[i % 4]!;
  return Buffer.concat([Buffer.from(head), extended, key, masked]);
}

/** A TCP connection that has (or has not) completed a WebSocket handshake, for writing frames by hand. */
export interface RawWebSocket {
  readonly socket: net.Socket;
  /** The server's answer to the handshake: its status line. */
  readonly status: string;
  send(frame: RawFrame): void;
  /** Everything received after the handshake. */
  received(): Buffer;
  /** Resolves once the server has closed the connection (true), or false after `timeoutMs`. */
  closed(timeoutMs?: number): Promise<boolean>;
  /** The code of the server's close frame, if one came. */
  closeCode(): number | undefined;
  destroy(): void;
}

/**
 * Opens `ws://host:port/` by hand: the upgrade request with `headers`
 * (`authorization`, a different `host`…), and the raw socket after it.
 */
export async function rawWebSocket(
  port: number,
  headers: Record<string, string> = {},
  host = '127.0.0.1',
): Promise<RawWebSocket> {
  const socket = net.connect(port, host);
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const ownHost = Object.keys(headers).some((name) => name.toLowerCase() === 'host');
  const lines = [
    'GET / HTTP/1.1',
    ...(ownHost ? [] : [`Host: ${host}:${port}`]),
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
    'Sec-WebSocket-Version: 13',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  let buffered = Buffer.alloc(0);
  let isClosed = false;
  const closedWaiters: (() => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
  });
  socket.on('close', () => {
    isClosed = true;
    for (const wake of closedWaiters.splice(0)) wake();
  });
  const status = await new Promise<string>((resolve) => {
    const look = (): void => {
      const end = buffered.indexOf('\r\n\r\n');
      if (end >= 0) {
        socket.off('data', look);
        const head = buffered.subarray(0, end).toString('latin1');
        buffered = buffered.subarray(end + 4);
        resolve(head.split('\r\n')[0]!);
      } else if (isClosed) {
        resolve('');
      }
    };
    socket.on('data', look);
    closedWaiters.push(look);
    look();
  });
  return {
    socket,
    status,
    send(frame) {
      if (!socket.destroyed) socket.write(encodeFrame(frame));
    },
    received: () => buffered,
    closed(timeoutMs = 5_000) {
      if (isClosed) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        closedWaiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    closeCode() {
      // A server's frames are unmasked: [0x88, len, code(2), reason]; find the close frame among any others.
      for (let at = 0; at + 2 <= buffered.length; ) {
        const opcode = buffered[at]! & 0x0f;
        let length = buffered[at + 1]! & 0x7f;
        let start = at + 2;
        if (length === 126) {
          length = buffered.readUInt16BE(start);
          start += 2;
        } else if (length === 127) {
          length = Number(buffered.readBigUInt64BE(start));
          start += 8;
        }
        if (opcode === 0x8) return length >= 2 ? buffered.readUInt16BE(start) : 1005;
        at = start + length;
      }
      return undefined;
    },
    destroy: () => socket.destroy(),
  };
}
