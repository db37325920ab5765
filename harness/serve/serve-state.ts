import path from 'node:path';
import { isWithin } from '../../shared/path-within.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { CreateSessionRequest, SessionInfo, Transcript } from '../../shared/serve-api.js';
import { loadSession } from '../session/session-reader.js';
import { resolveSession, sessionTotals } from '../session/session-store.js';
import { checkModel } from './check-model.js';
import { publicMessage } from './public-message.js';
import { ServeError } from './serve-error.js';
import { type AgentStart, ServeSession, type ServeSessionOptions } from './serve-session.js';
import { grantSession, type ServerLimits } from './session-policy.js';

export interface ServeStateOptions extends Omit<ServeSessionOptions, 'takeRunSlot' | 'publicMessage'> {
  server: ServerLimits;
  /** The server's policy resolved for its own workspace: what session workspaces are checked against. */
  rootPolicy: ResolvedPolicy;
  /** The model when a session names none. */
  defaultModel: string;
  maxSessions: number;
  maxRuns: number;
}

/**
 * The server's sessions and limits, without HTTP: create (checked against
 * the server's policy), find, list, fork, delete, and the run slots every
 * session's runs share.
 */
export class ServeState {
  private readonly sessions = new Map<string, ServeSession>();
  /** Sessions being created, counted against the limit before they exist. */
  private opening = 0;
  /** The workspaces of sessions being created, checked for overlap like those of open sessions. */
  private readonly openingWorkspaces = new Set<string>();
  private runs = 0;
  private shuttingDown = false;

  constructor(private readonly options: ServeStateOptions) {}

  get runningCount(): number {
    return this.runs;
  }

  async create(request: CreateSessionRequest): Promise<ServeSession> {
    this.assertAccepting();
    this.assertRoom();
    if (request.resume) {
      const open = [...this.sessions.values()].find((s) => s.id.startsWith(request.resume!.toLowerCase()));
      if (open) throw new ServeError('busy', `session ${open.id} is already open here; use it`);
    }
    this.opening++;
    let reserved: string | undefined;
    try {
      const grant = await grantSession(this.options.server, this.options.rootPolicy, request);
      this.assertNoOverlap(grant.workspace);
      reserved = grant.workspace;
      this.openingWorkspaces.add(reserved);
      if (request.model) checkModel(request.model);
      const start: AgentStart = {
        ...grant,
        model: request.model ?? this.options.defaultModel,
        session: request.resume ? { kind: 'resume', id: request.resume } : { kind: 'new' },
      };
      const session = await ServeSession.open(start, this.sessionOptions()).catch((error: unknown) => {
        const failure = ServeError.fromUnknown(error);
        // The runtime's own refusals keep their codes; anything else is the agent failing to start.
        if (failure.code !== 'internal') throw failure;
        throw new ServeError('start_failed', `the session's agent could not start: ${failure.message}`);
      });
      return this.add(session);
    } finally {
      this.opening--;
      if (reserved !== undefined) this.openingWorkspaces.delete(reserved);
    }
  }

  /** An error message as a client may see it: no host path, no huge echo (`publicMessage`). */
  publicMessage(message: string): string {
    return publicMessage(message, this.options.server.root);
  }

  get(id: string): ServeSession {
    const session = this.sessions.get(id);
    if (!session)
      throw new ServeError('not_found', `no session ${id} on this server (GET /v1/sessions lists them)`);
    return session;
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((session) => session.info());
  }

  async fork(id: string, atEventId: string | undefined): Promise<ServeSession> {
    this.assertAccepting();
    const source = this.get(id);
    this.assertRoom();
    this.opening++;
    try {
      return this.add(await source.fork(atEventId));
    } finally {
      this.opening--;
    }
  }

  async delete(id: string): Promise<void> {
    const session = this.get(id);
    this.sessions.delete(id);
    await session.close();
  }

  /** The log of the session's agent (`agentSessionId`) as `skate sessions show --json` prints it. */
  async transcript(id: string): Promise<Transcript> {
    const session = this.get(id);
    const { file } = await resolveSession(session.workspace, session.info().agentSessionId);
    const loaded = await loadSession(file);
    const totals = await sessionTotals(session.workspace, loaded);
    return { header: loaded.header, events: [...loaded.events], totals };
  }

  /** Refuses new sessions and runs, interrupts every run, and closes every session. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    for (const session of this.sessions.values()) session.interrupt();
    await Promise.allSettled([...this.sessions.values()].map((session) => session.close()));
    this.sessions.clear();
  }

  private add(session: ServeSession): ServeSession {
    if (this.shuttingDown) {
      void session.close();
      throw new ServeError('shutting_down', 'the server is shutting down');
    }
    this.sessions.set(session.id, session);
    return session;
  }

  private sessionOptions(): ServeSessionOptions {
    return {
      start: this.options.start,
      idleMs: this.options.idleMs,
      replayLimit: this.options.replayLimit,
      requestTimeoutMs: this.options.requestTimeoutMs,
      publicMessage: (message) => this.publicMessage(message),
      ...(this.options.onLog && { onLog: this.options.onLog }),
      takeRunSlot: () => {
        this.assertAccepting();
        if (this.runs >= this.options.maxRuns) {
          throw new ServeError(
            'too_many_runs',
            `${this.runs} runs are in progress, the server's limit (--max-runs ${this.options.maxRuns}); retry when one ends`,
          );
        }
        this.runs++;
        let released = false;
        return () => {
          if (!released) this.runs--;
          released = true;
        };
      },
    };
  }

  /**
   * Refuses a workspace that contains, or lies inside, the workspace of an open
   * session (the same one is fine). The inner session's `.skate`, made by the
   * harness once the outer session's sandbox runs, would be writable to the
   * outer one's commands: its logs, which the transcript serves, rewritten.
   */
  private assertNoOverlap(workspace: string): void {
    const open = [...this.sessions.values()].map((session) => session.workspace);
    const other = [...open, ...this.openingWorkspaces].find(
      (taken) => taken !== workspace && (isWithin(taken, workspace) || isWithin(workspace, taken)),
    );
    if (other === undefined) return;
    const root = this.options.server.root;
    const [shown, taken] = [workspace, other].map((dir) => path.relative(root, dir) || '.');
    throw new ServeError(
      'workspace_in_use',
      `workspace ${shown} ${isWithin(other, workspace) ? 'lies inside' : 'contains'} ${taken}, the workspace of an open session: one session's commands could write the other's .skate (its logs); delete that session first, or use the same workspace`,
    );
  }

  private assertRoom(): void {
    if (this.sessions.size + this.opening >= this.options.maxSessions) {
      throw new ServeError(
        'too_many_sessions',
        `${this.sessions.size} sessions are open, the server's limit (--max-sessions ${this.options.maxSessions}); delete one first`,
      );
    }
  }

  private assertAccepting(): void {
    if (this.shuttingDown) throw new ServeError('shutting_down', 'the server is shutting down');
  }
}
