import type { Message } from '../../shared/conversation.js';
import type { ChildSession, ChildSessionInfo } from '../agents/spawn-agent-tool.js';
import { SessionError } from '../session/session-error.js';
import { forkSession, latestSession, resumeSession } from '../session/session-store.js';
import { createSessionWriter, type SessionWriter } from '../session/session-writer.js';
import { UsageError } from './usage-error.js';

export interface SessionFlags {
  /** `--continue`: the latest top-level session of the workspace. */
  continueSession?: boolean | undefined;
  /** `--resume ID`. */
  resume?: string | undefined;
  /** `--fork-at EVENT_ID`, with `--resume`. */
  forkAt?: string | undefined;
  /** False with `--no-session`: nothing is recorded. */
  session?: boolean | undefined;
}

export interface RunSession {
  /** Undefined with `--no-session`. */
  writer: SessionWriter | undefined;
  /** The conversation so far, for a resumed or forked session. */
  history: Message[];
  /** Gives each sub-agent its own log, linked to the log of the agent that spawned it. */
  forChild(info: ChildSessionInfo): Promise<ChildSession | undefined>;
  close(): Promise<void>;
}

function usage(error: unknown): never {
  if (error instanceof SessionError) throw new UsageError(error.message);
  throw error;
}

/** Opens the session a run records into: new, continued, resumed or forked. */
export async function openRunSession(
  flags: SessionFlags,
  where: { workspace: string; model: string; policy: string },
  note: (line: string) => void,
): Promise<RunSession> {
  if (flags.forkAt && !flags.resume) throw new UsageError('--fork-at needs --resume ID');
  if (flags.session === false) {
    if (flags.continueSession || flags.resume)
      throw new UsageError('--no-session cannot continue or resume a session');
    return { writer: undefined, history: [], forChild: async () => undefined, close: async () => {} };
  }
  const onError = (error: SessionError) => note(`session log: ${error.message}`);
  let writer: SessionWriter;
  let history: Message[] = [];
  try {
    let resumeId = flags.resume;
    if (flags.continueSession) {
      const latest = await latestSession(where.workspace);
      if (!latest) throw new UsageError(`no session to continue in ${where.workspace}`);
      resumeId = latest.id;
    }
    if (resumeId) {
      const opened = flags.forkAt
        ? await forkSession(where.workspace, resumeId, flags.forkAt, { onError })
        : await resumeSession(where.workspace, resumeId, { onError });
      for (const warning of opened.warnings) note(warning);
      writer = opened.writer;
      history = opened.messages;
    } else {
      writer = await createSessionWriter(where, { onError });
    }
  } catch (error) {
    usage(error);
  }
  // Every open log of this run, so a grandchild's link lands in its own parent's log.
  const open = new Map<string, SessionWriter>([[writer.header.id, writer]]);
  return {
    writer,
    history,
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
      });
      return {
        log: child,
        sessionId: child.header.id,
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
