import type { Message } from '../../shared/conversation.js';
import type { ChildSession, ChildSessionInfo } from '../agents/spawn-agent-tool.js';
import type { ConversationLog } from '../engine/engine-types.js';
import type { NoticeEvent } from '../session/notice-line.js';
import type { PlacedNotice } from '../session/notices-from-events.js';
import type { AgentIdSeed } from '../session/session-agent-ids.js';
import { SessionError } from '../session/session-error.js';
import { forkSession, latestSession, resumeSession } from '../session/session-store.js';
import { createSessionWriter, type SessionWriter } from '../session/session-writer.js';
import { AgentRuntimeError } from './agent-runtime-error.js';
import type { SessionSettings } from './agent-settings.js';
import type { MessageRef } from './logged-message.js';

/** The session log an agent records into, and how its sub-agents get theirs. */
export interface SessionLog {
  /** Undefined when nothing is recorded. */
  log: ConversationLog | undefined;
  /** The session's id, when there is one. */
  sessionId: string | undefined;
  /** The writer, for a session this agent opened itself (model changes are appended to it). */
  writer: SessionWriter | undefined;
  /** The conversation so far, for a continued, resumed or forked session. */
  history: Message[];
  /** Whether the session already has a title record (only one is asked for). */
  titled: boolean;
  /** Where each message of `history` is in the log (the messages themselves are the keys). */
  historyRefs: ReadonlyMap<Message, MessageRef>;
  /** The notices of `history` (refusals, decisions), placed among its messages. */
  historyNotices: readonly PlacedNotice[];
  /** The highest sub-agent ids the session used (none for a new one): new children's continue after them. */
  agentIds: AgentIdSeed;
  /** Keeps a notice (a network refusal, a hook's notable decision) in this agent's own log, if it has one. */
  notice(event: NoticeEvent): void;
  /** Gives each sub-agent its own log, linked to the log of the agent that spawned it. */
  forChild(info: ChildSessionInfo): Promise<ChildSession | undefined>;
  close(): Promise<void>;
}

export interface SessionPlace {
  workspace: string;
  model: string;
  policy: string;
  note(line: string): void;
}

function sessionError(error: unknown): never {
  if (error instanceof SessionError) throw new AgentRuntimeError('session', error.message);
  throw error;
}

/** Opens the session an agent records into: new, continued, resumed, forked, a child's, or none. */
export async function openSessionLog(settings: SessionSettings, where: SessionPlace): Promise<SessionLog> {
  if (settings.kind === 'none' || settings.kind === 'child') {
    const log = settings.kind === 'child' ? settings.log : undefined;
    const sessionId = settings.kind === 'child' ? settings.sessionId : undefined;
    // A child's log is its parent's to open: its notices reach it through the parent's writer for it.
    const notice = (settings.kind === 'child' && settings.notice) || (() => {});
    return {
      log,
      sessionId,
      writer: undefined,
      history: [],
      titled: false,
      historyRefs: new Map(),
      historyNotices: [],
      agentIds: { agent: 0, bg: 0 },
      notice,
      forChild: async () => undefined,
      close: async () => {},
    };
  }
  const onError = (error: SessionError) => where.note(`session log: ${error.message}`);
  let writer: SessionWriter;
  let history: Message[] = [];
  let titled = false;
  let historyNotices: PlacedNotice[] = [];
  let agentIds: AgentIdSeed = { agent: 0, bg: 0 };
  const historyRefs = new Map<Message, MessageRef>();
  try {
    let resumeId = settings.kind === 'resume' ? settings.id : undefined;
    if (settings.kind === 'continue') {
      const latest = await latestSession(where.workspace);
      if (!latest) throw new AgentRuntimeError('session', `no session to continue in ${where.workspace}`);
      resumeId = latest.id;
    }
    if (resumeId) {
      const forkAt = settings.kind === 'resume' ? settings.forkAt : undefined;
      const opened = forkAt
        ? await forkSession(where.workspace, resumeId, forkAt, { onError })
        : await resumeSession(where.workspace, resumeId, { onError });
      for (const warning of opened.warnings) where.note(warning);
      writer = opened.writer;
      history = opened.messages;
      titled = opened.titled;
      historyNotices = opened.notices;
      agentIds = opened.agentIds;
      for (const [message, event] of opened.eventOf)
        historyRefs.set(message, { eventId: event.id, parentId: event.parentId });
    } else {
      writer = await createSessionWriter(
        { workspace: where.workspace, model: where.model, policy: where.policy },
        { onError },
      );
    }
  } catch (error) {
    sessionError(error);
  }
  // Every open log of this agent's tree, so a grandchild's link lands in its own parent's log.
  const open = new Map<string, SessionWriter>([[writer.header.id, writer]]);
  return {
    log: writer,
    sessionId: writer.header.id,
    writer,
    history,
    titled,
    historyRefs,
    historyNotices,
    agentIds,
    notice: (event) => writer.append({ type: 'notice', event }),
    async forChild(info) {
      const parentId = info.parentSessionId ?? writer.header.id;
      const child = await createSessionWriter(
        {
          workspace: where.workspace,
          model: where.model,
          policy: info.policy.name,
          parentSessionId: parentId,
        },
        { onError },
      );
      open.set(child.header.id, child);
      open.get(parentId)?.append({
        type: 'subagent_link',
        childSessionId: child.header.id,
        callId: info.callId,
        task: info.task,
        agentId: info.agentId,
      });
      return {
        log: child,
        sessionId: child.header.id,
        notice: (event) => child.append({ type: 'notice', event }),
        close: async () => {
          open.delete(child.header.id);
          await child.close();
        },
      };
    },
    async close() {
      await Promise.all([...open.values()].map((log) => log.close()));
    },
  };
}
