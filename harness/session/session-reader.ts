import { readFile } from 'node:fs/promises';
import type { Message } from '../../shared/conversation.js';
import { isObject } from '../../shared/is-object.js';
import {
  SESSION_FORMAT_VERSION,
  SessionEvent,
  SessionHeader,
  SessionPayload,
} from '../../shared/session-format.js';
import { SESSION_FORMAT_V1, SessionEventV1, SessionHeaderV1 } from '../../shared/session-format-v1.js';
import { conversationFromEvents } from './conversation-from-events.js';
import { convertV1Session } from './convert-v1-session.js';
import { isSessionEvent } from './is-session-event.js';
import { SessionError } from './session-error.js';

/** A session file read into memory: its header, its events and the tree they form. */
export interface LoadedSession {
  readonly file: string;
  /** The header in today's format (a version 1 file's converted). */
  readonly header: SessionHeader;
  /** The format the file is written in: 1 for a file from before whole messages, converted on reading. */
  readonly fileVersion: number;
  /** Every event, in file order (a parent always comes before its children). */
  readonly events: readonly SessionEvent[];
  /** Children of each event by id; the key `null` holds the roots. */
  readonly children: ReadonlyMap<string | null, readonly SessionEvent[]>;
  /** What was skipped while loading (a torn last line), one sentence each naming file:line. */
  readonly warnings: readonly string[];
  /** Bytes of complete lines; less than the file's size when a torn last line was skipped. */
  readonly validBytes: number;
  /**
   * The event with this id, or with this unique id prefix; throws `unknown_event`
   * otherwise. A version 1 event folded into another on conversion finds that one.
   */
  findEvent(idOrPrefix: string): SessionEvent;
  /** The newest leaf: the last event written (nothing can follow it, so it is always a leaf). */
  latestLeaf(): SessionEvent | undefined;
  /** The events from the root to `eventId` (default: the latest leaf), in order. */
  pathTo(eventId?: string): SessionEvent[];
  /** The Message[] the model would receive to continue from `eventId` (default: the latest leaf). */
  conversationAt(eventId?: string): Message[];
}

/**
 * Reads a session file. A torn last line (no newline, or not JSON) is what a
 * crash mid-write leaves: it is skipped with a warning. Anything else wrong
 * throws a SessionError naming the file and line.
 */
export async function loadSession(file: string): Promise<LoadedSession> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw SessionError.fromUnknown(error, file);
  }
  if (bytes.length === 0)
    throw new SessionError('empty', `${file}: empty file (the session never started)`, file);
  return parseSession(file, bytes);
}

/** `loadSession` on bytes already read. */
export function parseSession(file: string, bytes: Buffer): LoadedSession {
  const text = bytes.toString('utf8');
  const firstEnd = text.indexOf('\n');
  const header = parseHeader(file, firstEnd === -1 ? text : text.slice(0, firstEnd), firstEnd === -1);
  if (firstEnd === -1)
    throw new SessionError('empty', `${file}: the header line is torn (the session never started)`, file, 1);
  const v1 = header.version === SESSION_FORMAT_V1;
  const readEvent = v1 ? validEventV1 : validEvent;

  let events: SessionEvent[] = [];
  let byId = new Map<string, SessionEvent>();
  /** Lines of a kind this Skate does not know (a newer Skate's), each folded into its nearest known ancestor. */
  const skipped = new Map<string, string | null>();
  const skippedKinds = new Set<string>();
  const warnings: string[] = [];
  let validBytes = bytes.length;
  let lineNumber = 1;
  for (let start = firstEnd + 1; start < text.length; ) {
    lineNumber++;
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end);
    const lineStart = start;
    start = end + 1;
    if (line.trim() === '') continue;
    let value: unknown;
    let parsed = newline !== -1;
    if (parsed) {
      try {
        value = JSON.parse(line);
      } catch {
        parsed = false;
      }
    }
    if (!parsed) {
      const isLast = newline === -1 || text.slice(start).trim() === '';
      if (!isLast) throw corrupt(file, lineNumber, 'not valid JSON');
      warnings.push(
        `${file}:${lineNumber}: skipped a torn last line (${newline === -1 ? 'no newline' : 'not valid JSON'}); the writer stopped mid-write`,
      );
      validBytes = Buffer.byteLength(text.slice(0, lineStart));
      break;
    }
    const unknown = v1 ? undefined : unknownKind(value);
    let event = unknown ?? (readEvent(file, lineNumber, value) as SessionEvent);
    if (byId.has(event.id) || skipped.has(event.id))
      throw corrupt(file, lineNumber, `event id ${event.id} appears twice`);
    if (event.parentId !== null && !byId.has(event.parentId) && !skipped.has(event.parentId))
      throw corrupt(file, lineNumber, `parentId ${event.parentId} names no earlier event`);
    const parentId = event.parentId === null ? null : (skipped.get(event.parentId) ?? event.parentId);
    if (unknown) {
      skipped.set(unknown.id, parentId);
      skippedKinds.add(unknown.kind);
      continue;
    }
    event = event as SessionEvent;
    if (parentId !== event.parentId) event = { ...event, parentId };
    byId.set(event.id, event);
    events.push(event);
  }
  if (skipped.size > 0) {
    warnings.push(
      `${file}: skipped ${skipped.size} line(s) of a kind this Skate does not read (${[...skippedKinds].join(', ')}: from a newer Skate); the conversation loads without them`,
    );
  }
  if (header.version !== SESSION_FORMAT_V1)
    return createLoadedSession(
      file,
      header,
      SESSION_FORMAT_VERSION,
      events,
      byId,
      // A skipped line's id (a fork point named by a newer Skate) finds its nearest known ancestor.
      new Map([...skipped].filter((entry): entry is [string, string] => entry[1] !== null)),
      warnings,
      validBytes,
    );
  const converted = convertV1Session(header, events as unknown as SessionEventV1[]);
  events = converted.events;
  byId = new Map(events.map((event) => [event.id, event]));
  return createLoadedSession(
    file,
    converted.header,
    SESSION_FORMAT_V1,
    events,
    byId,
    converted.aliases,
    warnings,
    validBytes,
  );
}

function parseHeader(file: string, line: string, torn: boolean): SessionHeader | SessionHeaderV1 {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    if (torn && line.startsWith('{"type":"session"'))
      throw new SessionError(
        'empty',
        `${file}: the header line is torn (the session never started)`,
        file,
        1,
      );
    throw new SessionError(
      'not_a_session',
      `${file}:1: not a Skate session (the first line is not JSON)`,
      file,
      1,
    );
  }
  const record = value as { type?: unknown; version?: unknown } | null;
  if (typeof record !== 'object' || record === null || record.type !== 'session')
    throw new SessionError('not_a_session', `${file}:1: not a Skate session (no session header)`, file, 1);
  if (record.version !== SESSION_FORMAT_VERSION && record.version !== SESSION_FORMAT_V1)
    throw new SessionError(
      'unsupported_version',
      `${file}:1: session format version ${JSON.stringify(record.version)} is not supported (this Skate reads versions ${SESSION_FORMAT_V1} to ${SESSION_FORMAT_VERSION})`,
      file,
      1,
    );
  const header = (record.version === SESSION_FORMAT_V1 ? SessionHeaderV1 : SessionHeader).safeParse(value);
  if (!header.success) throw corrupt(file, 1, `invalid session header: ${issues(header.error)}`);
  return header.data;
}

const KNOWN_KINDS: ReadonlySet<string> = new Set(
  SessionPayload.options.map((option) => option.shape.type.value),
);
const Envelope = SessionEvent.omit({ payload: true });

/**
 * A well-formed event of a kind this Skate does not know, which a newer Skate may add to version 2
 * without a new number (see `SESSION_FORMAT_VERSION`): its envelope, to keep the tree whole, and
 * its kind. Undefined for a known kind (then checked whole) and for anything malformed (corrupt).
 */
function unknownKind(value: unknown): { id: string; parentId: string | null; kind: string } | undefined {
  if (!isObject(value) || !isObject(value.payload)) return undefined;
  const kind = value.payload.type;
  if (typeof kind !== 'string' || KNOWN_KINDS.has(kind)) return undefined;
  const envelope = Envelope.safeParse(value);
  return envelope.success ? { id: envelope.data.id, parentId: envelope.data.parentId, kind } : undefined;
}

function validEvent(file: string, line: number, value: unknown): SessionEvent {
  // The fast check covers every line Skate writes; zod only runs on what it refuses, and words the error.
  if (isSessionEvent(value)) return value;
  const result = SessionEvent.safeParse(value);
  if (!result.success) throw corrupt(file, line, `invalid event: ${issues(result.error)}`);
  return result.data;
}

/** A version 1 line: old files only, so zod alone (no fast path) is quick enough. */
function validEventV1(file: string, line: number, value: unknown): SessionEventV1 {
  const result = SessionEventV1.safeParse(value);
  if (!result.success) throw corrupt(file, line, `invalid event: ${issues(result.error)}`);
  return result.data;
}

function issues(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : ''}${issue.message}`)
    .join('; ');
}

function corrupt(file: string, line: number, reason: string): SessionError {
  return new SessionError('corrupt_line', `${file}:${line}: ${reason}`, file, line);
}

function createLoadedSession(
  file: string,
  header: SessionHeader,
  fileVersion: number,
  events: SessionEvent[],
  byId: Map<string, SessionEvent>,
  aliases: ReadonlyMap<string, string>,
  warnings: string[],
  validBytes: number,
): LoadedSession {
  // Built on first use: listing and resuming never need it, and it costs ~50 ms per 100,000 events.
  let children: Map<string | null, SessionEvent[]> | undefined;
  const tree = (): Map<string | null, SessionEvent[]> => {
    if (children) return children;
    children = new Map();
    for (const event of events) {
      const siblings = children.get(event.parentId);
      if (siblings) siblings.push(event);
      else children.set(event.parentId, [event]);
    }
    return children;
  };
  const findEvent = (idOrPrefix: string): SessionEvent => {
    const exact = byId.get(aliases.get(idOrPrefix) ?? idOrPrefix);
    if (exact) return exact;
    const ids = new Set<string>();
    if (idOrPrefix !== '') {
      for (const event of events) if (event.id.startsWith(idOrPrefix)) ids.add(event.id);
      for (const [id, into] of aliases) if (id.startsWith(idOrPrefix)) ids.add(into);
    }
    const matches = [...ids];
    if (matches.length === 1) return byId.get(matches[0]!)!;
    throw new SessionError(
      'unknown_event',
      matches.length === 0
        ? `${file}: no event ${idOrPrefix} in session ${header.id}`
        : `${file}: ${matches.length} events start with ${idOrPrefix}; give more of the id`,
      file,
    );
  };
  const pathTo = (eventId?: string): SessionEvent[] => {
    const path: SessionEvent[] = [];
    let event: SessionEvent | undefined = eventId === undefined ? events.at(-1) : findEvent(eventId);
    while (event) {
      path.push(event);
      event = event.parentId === null ? undefined : byId.get(event.parentId);
    }
    return path.reverse();
  };
  return {
    file,
    header,
    fileVersion,
    events,
    get children() {
      return tree();
    },
    warnings,
    validBytes,
    findEvent,
    latestLeaf: () => events.at(-1),
    pathTo,
    conversationAt: (eventId) => conversationFromEvents(pathTo(eventId)),
  };
}
