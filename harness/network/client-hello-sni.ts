/** A ClientHello larger than this is refused: real ones are a few KiB, even with post-quantum key shares. */
export const MAX_CLIENT_HELLO_BYTES = 16 * 1024;

/** What the first bytes of a tunnel say about its TLS server name. */
export type ClientHelloScan =
  /** Not a TLS handshake at all (the first byte is not a handshake record). */
  | { kind: 'not-tls' }
  /** More bytes are needed. */
  | { kind: 'partial' }
  /** A malformed or oversized ClientHello. */
  | { kind: 'invalid' }
  /** The ClientHello, with its `server_name` (undefined when it sends none). */
  | { kind: 'hello'; serverName: string | undefined };

const HANDSHAKE = 0x16;
const CLIENT_HELLO = 0x01;
const SERVER_NAME_EXTENSION = 0x0000;

/**
 * Reads the TLS ClientHello at the start of `data` (RFC 8446 §4.1.2, RFC 6066 §3), reassembling
 * it from several records if need be, and returns its host name. Every length is checked against
 * what is there: garbage yields `invalid`, never a throw.
 */
export function scanClientHello(data: Buffer): ClientHelloScan {
  if (data.length === 0) return { kind: 'partial' };
  if (data[0] !== HANDSHAKE) return { kind: 'not-tls' };
  // The handshake message, gathered from consecutive handshake records.
  const parts: Buffer[] = [];
  let gathered = 0;
  let offset = 0;
  let needed: number | undefined;
  while (needed === undefined || gathered < needed) {
    if (offset + 5 > data.length)
      return data.length > MAX_CLIENT_HELLO_BYTES ? { kind: 'invalid' } : { kind: 'partial' };
    if (data[offset] !== HANDSHAKE) return { kind: 'invalid' };
    const length = data.readUInt16BE(offset + 3);
    if (length === 0 || length > MAX_CLIENT_HELLO_BYTES) return { kind: 'invalid' };
    if (offset + 5 + length > data.length) {
      return offset + 5 + length > MAX_CLIENT_HELLO_BYTES ? { kind: 'invalid' } : { kind: 'partial' };
    }
    parts.push(data.subarray(offset + 5, offset + 5 + length));
    gathered += length;
    offset += 5 + length;
    if (needed === undefined && gathered >= 4) {
      const head = Buffer.concat(parts);
      if (head[0] !== CLIENT_HELLO) return { kind: 'invalid' };
      needed = 4 + head.readUIntBE(1, 3);
      if (needed > MAX_CLIENT_HELLO_BYTES) return { kind: 'invalid' };
    }
  }
  const hello = Buffer.concat(parts).subarray(4, needed);
  const serverName = readServerName(hello);
  return serverName === null ? { kind: 'invalid' } : { kind: 'hello', serverName };
}

/** The host_name of a ClientHello body; undefined when absent, null when malformed. */
function readServerName(body: Buffer): string | undefined | null {
  let at = 2 + 32; // legacy_version, random
  const skip = (lengthBytes: number): boolean => {
    if (at + lengthBytes > body.length) return false;
    const length = body.readUIntBE(at, lengthBytes);
    at += lengthBytes + length;
    return at <= body.length;
  };
  if (!skip(1) || !skip(2) || !skip(1)) return null; // session id, cipher suites, compression
  if (at === body.length) return undefined; // no extensions
  if (at + 2 > body.length) return null;
  const end = at + 2 + body.readUInt16BE(at);
  if (end > body.length) return null;
  at += 2;
  while (at + 4 <= end) {
    const type = body.readUInt16BE(at);
    const length = body.readUInt16BE(at + 2);
    const start = at + 4;
    if (start + length > end) return null;
    if (type === SERVER_NAME_EXTENSION) return hostNameOf(body.subarray(start, start + length));
    at = start + length;
  }
  return at === end ? undefined : null;
}

function hostNameOf(extension: Buffer): string | null {
  if (extension.length < 2) return null;
  const listEnd = 2 + extension.readUInt16BE(0);
  if (listEnd > extension.length) return null;
  let at = 2;
  while (at + 3 <= listEnd) {
    const type = extension[at]!;
    const length = extension.readUInt16BE(at + 1);
    if (at + 3 + length > listEnd) return null;
    // Only ASCII names are valid here (RFC 6066: A-labels); anything else is refused by the caller.
    if (type === 0) return extension.subarray(at + 3, at + 3 + length).toString('latin1');
    at += 3 + length;
  }
  return null;
}
