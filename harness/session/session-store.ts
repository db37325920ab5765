import { open, readdir, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { Message } from '../../shared/conversation.js';
import {
  SESSION_FORMAT_VERSION,
  type SessionEvent,
  type SessionHeader,
} from '../../shared/session-format.js';
import { closeOpenCalls } from './close-open-calls.js';
import { conversationFromEvents } from './conversation-from-events.js';
import { noticesFromEvents, type PlacedNotice } from './notices-from-events.js';
import { rewriteSessionFile } from './rewrite-session-file.js';
import { type AgentIdSeed, highestAgentIds } from './session-agent-ids.js';
import { SessionError } from './session-error.js';
import { lockSession } from './session-lock.js';
import { sessionsDir } from './session-paths.js';
import { type LoadedSession, loadSession } from './session-reader.js';
import { type SessionSummary, summarizeSession } from './session-summary.js';
import {
  linkedChildren,
  ownTotals,
  rollUpTotals,
  type SessionTotals,
  type TotalsNode,
  zeroTotals,
} from './session-totals.js';
import {
  createSessionWriter,
  reopenSessionWriter,
  type SessionWriter,
  type SessionWriterOptions,
} from './session-writer.js';

/** A session file that could not be listed, and why. */
export interface SessionProblem {
  file: string;
  error: SessionError;
}

export interface SessionListing {
  /** Most recently active first. */
  sessions: SessionSummary[];
  /** Files in the sessions folder that are not readable sessions; they never hide the others. */
  problems: SessionProblem[];
}

/** Every session of a workspace, summarised, with token and cost totals that include sub-agents. */
export async function listSessions(workspace: string): Promise<SessionListing> {
  const files = await sessionFiles(workspace);
  const sessions: SessionSummary[] = [];
  const problems: SessionProblem[] = [];
  const nodes = new Map<string, TotalsNode>();
  // A few at a time: each load holds a whole file in memory only while it is summarised.
  await forEachLimited(files, 8, async (file) => {
    try {
      const session = await loadSession(file);
      sessions.push(summarizeSession(session));
      nodes.set(session.header.id, { own: ownTotals(session), children: linkedChildren(session) });
    } catch (error) {
      problems.push({ file, error: SessionError.fromUnknown(error, file) });
    }
  });
  addHeaderLinks(nodes, sessions);
  for (const summary of sessions) summary.total = rollUpTotals(summary.id, nodes);
  const activity = (summary: SessionSummary): string => summary.lastEventId ?? summary.id;
  sessions.sort(
    (a, b) => b.lastActivity.localeCompare(a.lastActivity) || activity(b).localeCompare(activity(a)),
  );
  problems.sort((a, b) => a.file.localeCompare(b.file));
  return { sessions, problems };
}

/** The most recently active top-level session (not a sub-agent's), for `--continue`. */
export async function latestSession(workspace: string): Promise<SessionSummary | undefined> {
  return (await listSessions(workspace)).sessions.find((session) => !session.parentSessionId);
}

/** The session whose id is `idOrPrefix` or starts with it; `missing` or `ambiguous` otherwise. */
export async function resolveSession(
  workspace: string,
  idOrPrefix: string,
): Promise<{ id: string; file: string }> {
  const wanted = idOrPrefix.trim().toLowerCase();
  // Ids are uuids: anything else could walk out of the sessions folder.
  if (!/^[0-9a-f-]{1,36}$/.test(wanted))
    throw new SessionError('missing', `"${idOrPrefix}" is not a session id (see \`skate sessions list\`)`);
  const ids = (await sessionFiles(workspace)).map((file) => path.basename(file, '.jsonl'));
  const matches = ids.includes(wanted) ? [wanted] : ids.filter((id) => id.startsWith(wanted));
  if (matches.length === 0)
    throw new SessionError(
      'missing',
      `no session ${idOrPrefix} in ${sessionsDir(workspace)} (see \`skate sessions list\`)`,
    );
  if (matches.length > 1)
    throw new SessionError(
      'ambiguous',
      `${matches.length} sessions start with ${idOrPrefix}: ${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', …' : ''}; give more of the id`,
    );
  const id = matches[0]!;
  return { id, file: path.join(sessionsDir(workspace), `${id}.jsonl`) };
}

/** A session ready to continue: the conversation so far and a writer that extends it. */
export interface OpenedSession {
  header: SessionHeader;
  /** The conversation to hand the engine as `history`. */
  messages: Message[];
  writer: SessionWriter;
  /** Spent so far by this session and its sub-agents (zero for a new fork). */
  totals: SessionTotals;
  /** Whether the session (a fork: the path it copied) already has a title record. */
  titled: boolean;
  /** The event each message of `messages` was read from (a compaction's summary has none). */
  eventOf: ReadonlyMap<Message, SessionEvent>;
  /** What the conversation showed besides messages (refusals, decisions), placed among them. */
  notices: PlacedNotice[];
  /** The highest sub-agent ids the session used: new children's ids continue after them. */
  agentIds: AgentIdSeed;
  /** What was repaired or skipped on the way, one sentence each. */
  warnings: string[];
}

/**
 * Continues session `idOrPrefix` in its own file from its last event. A torn
 * last line is cut off first (appending after it would corrupt the next line),
 * a file in an older format is rewritten in today's (same ids), and tool calls
 * left without a result get an error result.
 */
export async function resumeSession(
  workspace: string,
  idOrPrefix: string,
  options: SessionWriterOptions = {},
): Promise<OpenedSession> {
  const { file } = await resolveSession(workspace, idOrPrefix);
  const unlock = await lockSession(file);
  try {
    return await resumeLocked(workspace, file, options, unlock);
  } catch (error) {
    await unlock();
    throw error;
  }
}

async function resumeLocked(
  workspace: string,
  file: string,
  options: SessionWriterOptions,
  unlock: () => Promise<void>,
): Promise<OpenedSession> {
  const session = await loadSession(file);
  const warnings = [...session.warnings];
  if (session.fileVersion !== SESSION_FORMAT_VERSION) {
    // New events go after converted ones, so the file must be in the format they are written in.
    await rewriteSessionFile(file, session.header, session.events);
    warnings.push(
      `${file}: converted from session format ${session.fileVersion} to ${SESSION_FORMAT_VERSION} before appending`,
    );
  }
  try {
    const { size } = await stat(file);
    if (session.fileVersion === SESSION_FORMAT_VERSION && session.validBytes < size) {
      await truncate(file, session.validBytes);
      warnings.push(
        `${file}: removed the torn last line (${size - session.validBytes} bytes) before appending`,
      );
    }
  } catch (error) {
    throw SessionError.fromUnknown(error, file);
  }
  // The lock goes with the writer: released when it closes.
  const writer = await reopenSessionWriter(file, session.header, session.events, options, unlock);
  const eventOf = new Map<Message, SessionEvent>();
  const messages = conversationFromEvents(session.pathTo(), (message, event) => eventOf.set(message, event));
  const closed = closeOpenCalls(messages, writer);
  if (closed > 0)
    warnings.push(`${file}: ${closed} tool call(s) had no result; recorded them as interrupted`);
  const totals = await sessionTotals(workspace, session, warnings);
  return {
    header: session.header,
    messages,
    writer,
    totals,
    titled: hasTitle(session.events),
    eventOf,
    notices: noticesFromEvents(session.pathTo()),
    agentIds: highestAgentIds(session.events),
    warnings,
  };
}

/**
 * Starts a new session whose file begins with a copy of the path from the
 * root of `sourceIdOrPrefix` to `atEventId` (an id or unique prefix), so it
 * loads on its own; its header names the source in `forkedFrom`. The source is
 * not touched.
 */
export async function forkSession(
  workspace: string,
  sourceIdOrPrefix: string,
  atEventId: string,
  options: SessionWriterOptions = {},
): Promise<OpenedSession> {
  const { file } = await resolveSession(workspace, sourceIdOrPrefix);
  const source = await loadSession(file);
  const at = source.findEvent(atEventId);
  const path_ = source.pathTo(at.id);
  const writer = await createSessionWriter(
    {
      workspace,
      model: modelAt(source.header, path_),
      policy: source.header.policy,
      cwd: source.header.cwd,
      forkedFrom: { sessionId: source.header.id, eventId: at.id },
      initialEvents: path_,
    },
    options,
  );
  const eventOf = new Map<Message, SessionEvent>();
  const messages = conversationFromEvents(path_, (message, event) => eventOf.set(message, event));
  const warnings = [...source.warnings];
  const closed = closeOpenCalls(messages, writer);
  if (closed > 0)
    warnings.push(`${closed} tool call(s) at the fork point had no result; recorded them as not run`);
  // Nothing is spent in a fork yet: its copied path was paid for by the source.
  return {
    header: writer.header,
    messages,
    writer,
    totals: zeroTotals(),
    titled: hasTitle(path_),
    eventOf,
    notices: noticesFromEvents(path_),
    agentIds: highestAgentIds(path_),
    warnings,
  };
}

function hasTitle(events: LoadedSession['events']): boolean {
  return events.some((event) => event.payload.type === 'title');
}

/** The model in use after `events`: the last one an assistant message or a switch named. */
function modelAt(header: SessionHeader, events: LoadedSession['events']): string {
  let model = header.model;
  for (const { payload } of events) {
    if (payload.type === 'assistant_message') model = payload.model;
    else if (payload.type === 'model_change') model = payload.to;
  }
  return model;
}

/**
 * `session`'s totals plus those of every sub-agent session below it (linked
 * either way), loading only those; children that cannot be read are left out
 * with a line in `warnings`.
 */
export async function sessionTotals(
  workspace: string,
  session: LoadedSession,
  warnings: string[] = [],
): Promise<SessionTotals> {
  const byParent = await childrenByHeader(workspace);
  const nodes = new Map<string, TotalsNode>();
  const queue: LoadedSession[] = [session];
  for (let current = queue.pop(); current; current = queue.pop()) {
    const id = current.header.id;
    const children = [...new Set([...linkedChildren(current), ...(byParent.get(id) ?? [])])];
    nodes.set(id, { own: ownTotals(current), children });
    for (const child of children) {
      if (nodes.has(child)) continue;
      const childFile = path.join(sessionsDir(workspace), `${child}.jsonl`);
      try {
        queue.push(await loadSession(childFile));
      } catch (error) {
        warnings.push(
          `sub-agent session left out of the totals: ${SessionError.fromUnknown(error, childFile).message}`,
        );
      }
    }
  }
  return rollUpTotals(session.header.id, nodes);
}

/** Child session ids by parent id, from each file's header line alone. */
async function childrenByHeader(workspace: string): Promise<Map<string, string[]>> {
  const byParent = new Map<string, string[]>();
  await forEachLimited(await sessionFiles(workspace), 8, async (file) => {
    const header = await readHeaderLine(file);
    if (!header?.parentSessionId || typeof header.id !== 'string') return;
    byParent.set(header.parentSessionId, [...(byParent.get(header.parentSessionId) ?? []), header.id]);
  });
  return byParent;
}

async function readHeaderLine(file: string): Promise<Partial<SessionHeader> | undefined> {
  try {
    const handle = await open(file, 'r');
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
      const text = buffer.toString('utf8', 0, bytesRead);
      const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as Partial<SessionHeader>;
      return header.type === 'session' ? header : undefined;
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** Adds the links sub-agent sessions declare in their headers to those their parents logged. */
function addHeaderLinks(nodes: Map<string, TotalsNode>, sessions: readonly SessionSummary[]): void {
  for (const summary of sessions) {
    const parent = summary.parentSessionId ? nodes.get(summary.parentSessionId) : undefined;
    if (parent && !parent.children.includes(summary.id))
      nodes.set(summary.parentSessionId!, { ...parent, children: [...parent.children, summary.id] });
  }
}

/** The `.jsonl` files of a workspace's sessions folder; none when it does not exist yet. */
async function sessionFiles(workspace: string): Promise<string[]> {
  const dir = sessionsDir(workspace);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw SessionError.fromUnknown(error, dir);
  }
  return names
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => path.join(dir, name));
}

async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
