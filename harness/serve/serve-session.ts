import { randomUUID } from 'node:crypto';
import type { EngineEvent } from '../../shared/engine-events.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import type { RunResult } from '../../shared/run-result.js';
import type { CommandRequest, PromptRequest, SessionInfo } from '../../shared/serve-api.js';
import type { ApprovalMode } from '../engine/engine-types.js';
import type { AgentSession } from '../runtime/agent-session.js';
import type { SessionSettings } from '../runtime/agent-settings.js';
import { runResultOf } from '../runtime/run-result-of.js';
import { RunBuffer } from './run-buffer.js';
import { ServeError } from './serve-error.js';

/** How a session's agent is started (and restarted from its log after an idle stop). */
export interface AgentStart {
  workspace: string;
  policy: ResolvedPolicy;
  approval: ApprovalMode;
  model: string;
  session: SessionSettings;
}

export interface ServeSessionOptions {
  start(settings: AgentStart): Promise<AgentSession>;
  /** An idle session's agent (and executor) is stopped after this long; restarted on the next prompt. */
  idleMs: number;
  /** Messages kept per run for reconnects. */
  replayLimit: number;
  /** Takes one of the server's run slots, or throws `too_many_runs`; the returned function gives it back. */
  takeRunSlot(): () => void;
  onLog?(line: string): void;
}

/**
 * One session of the HTTP API: an `AgentSession` of the runtime, its runs
 * (one at a time) and their buffered streams. Its id is the Skate session's,
 * so its log, transcript and `skate --resume` are the usual ones. While idle
 * past `idleMs` the agent is closed (its executor stopped, its log flushed)
 * and the next prompt resumes it from its log.
 */
export class ServeSession {
  readonly id: string;
  readonly created = new Date();
  private lastActivity = new Date();
  private agent: AgentSession | undefined;
  private starting: Promise<AgentSession> | undefined;
  /** An idle stop in progress: a restart waits for it, so the log's lock is free. */
  private stopping: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private run: RunBuffer | undefined;
  private runDone: Promise<void> | undefined;
  /** An interrupt that came while the run's agent was still being restarted. */
  private interruptedEarly = false;
  private nextEventId = 1;
  /** Requests of the running engine a client may answer, by id: the answer type each waits for. */
  private readonly pending = new Map<string, CommandRequest['type']>();
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  readonly model: string;

  private constructor(
    private readonly spec: Omit<AgentStart, 'session'>,
    agent: AgentSession,
    private readonly options: ServeSessionOptions,
  ) {
    const id = agent.sessionId;
    if (!id) throw new ServeError('internal', 'the agent records no session log');
    this.id = id;
    this.model = spec.model;
    this.adopt(agent);
  }

  /** Starts the agent for a new (or resumed) session. */
  static async open(start: AgentStart, options: ServeSessionOptions): Promise<ServeSession> {
    const agent = await options.start(start);
    const { session: _session, ...spec } = start;
    return new ServeSession(spec, agent, options);
  }

  /** Wraps an agent already started (a fork's). */
  static adopt(
    spec: Omit<AgentStart, 'session'>,
    agent: AgentSession,
    options: ServeSessionOptions,
  ): ServeSession {
    return new ServeSession(spec, agent, options);
  }

  get workspace(): string {
    return this.spec.workspace;
  }

  get running(): boolean {
    return this.run !== undefined && !this.run.isEnded;
  }

  /** The live agent's executor pid, for tests and logs; undefined while stopped. */
  get executorPid(): number | undefined {
    return this.agent?.executorPid;
  }

  info(): SessionInfo {
    const status = this.running ? 'running' : this.agent ? 'idle' : 'stopped';
    return {
      id: this.id,
      workspace: this.spec.workspace,
      policy: this.spec.policy.name,
      network: this.spec.policy.network.mode,
      approval: this.spec.approval,
      model: this.model,
      status,
      ...(this.run && { runId: this.run.runId }),
      lastEventId: this.nextEventId - 1,
      created: this.created.toISOString(),
      lastActivity: this.lastActivity.toISOString(),
    };
  }

  /**
   * Starts a run of `request` and returns its buffer at once; the run goes on
   * whether or not anyone reads it. A second prompt while one runs is `busy`.
   */
  prompt(request: PromptRequest): RunBuffer {
    this.assertOpen();
    if (this.running) {
      throw new ServeError(
        'busy',
        `session ${this.id} is running ${this.run?.runId}; wait for its result, or interrupt it (POST /v1/sessions/${this.id}/commands {"type":"interrupt"})`,
      );
    }
    const release = this.options.takeRunSlot();
    this.touch();
    this.interruptedEarly = false;
    const run = new RunBuffer(`run_${randomUUID()}`, this.nextEventId, this.options.replayLimit);
    this.run = run;
    this.push({ type: 'run_start', runId: run.runId, sessionId: this.id });
    const started = performance.now();
    this.runDone = (async () => {
      let result: RunResult;
      try {
        const agent = await this.live();
        if (this.interruptedEarly) {
          result = { ...emptyResult(this.model, this.id, started), status: 'cancelled' };
        } else {
          const outcome = await agent.prompt(request.text, request.images ? { images: request.images } : {});
          result = runResultOf(outcome, performance.now() - started);
        }
      } catch (error) {
        const message = ServeError.fromUnknown(error).message;
        this.push({ type: 'error', agent: [], message });
        result = { ...emptyResult(this.model, this.id, started), error: message };
      }
      this.push(result);
      run.end();
      this.pending.clear();
      release();
      this.touch();
    })();
    return run;
  }

  /** The run a reconnecting client reads: the current or last one, checked against its Last-Event-ID. */
  runFor(lastEventId: number | undefined): RunBuffer {
    const run = this.run;
    if (!run) throw new ServeError('not_found', `session ${this.id} has had no run yet`);
    if (lastEventId !== undefined && lastEventId < run.firstId - 1) {
      throw new ServeError(
        'replay_gone',
        `events after ${lastEventId} belong to an earlier run, no longer kept; the transcript has the conversation (GET /v1/sessions/${this.id}/transcript)`,
      );
    }
    return run;
  }

  /** An answer (approval, ask_user, loop cap) or an interrupt for the running engine. */
  command(command: CommandRequest): void {
    this.assertOpen();
    this.touch();
    if (command.type === 'interrupt') {
      if (!this.running) throw new ServeError('not_pending', `session ${this.id} has no run in progress`);
      this.interrupt();
      return;
    }
    const waiting = this.pending.get(command.requestId);
    if (waiting !== command.type || !this.agent?.answer(command)) {
      throw new ServeError(
        'not_pending',
        waiting
          ? `request ${command.requestId} waits for ${waiting}, not ${command.type}`
          : `session ${this.id} has no pending request ${command.requestId} (answered already, or its run ended)`,
      );
    }
    this.pending.delete(command.requestId);
  }

  /** A new session (its own agent and executor) holding this one's conversation up to `atEventId`. */
  async fork(atEventId: string | undefined): Promise<ServeSession> {
    this.assertOpen();
    if (this.running)
      throw new ServeError('busy', `session ${this.id} is running; fork it when the run ends`);
    const agent = await this.live();
    const at = atEventId ?? agent.lastEventId;
    if (!at) throw new ServeError('bad_request', `session ${this.id} has no events to fork from yet`);
    const forked = await agent.fork(at);
    this.touch();
    return ServeSession.adopt(this.spec, forked, this.options);
  }

  /** Interrupts any run, stops the agent and its executor, flushes the log. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.interrupt();
    await this.runDone;
    await this.stopAgent();
  }

  /** Interrupts the run in progress, if any, even one whose agent is still restarting. */
  interrupt(): void {
    if (this.running) this.interruptedEarly = true;
    this.agent?.interrupt();
  }

  private push(message: Parameters<RunBuffer['push']>[0]): void {
    const run = this.run;
    if (!run || run.isEnded) return;
    const answer = ANSWERS[message.type];
    if (answer && 'requestId' in message) this.pending.set(message.requestId, answer);
    this.nextEventId = run.push(message).id + 1;
  }

  /** The agent, restarted from the session log when it was stopped while idle. */
  private async live(): Promise<AgentSession> {
    if (this.agent) return this.agent;
    this.starting ??= (this.stopping ?? Promise.resolve())
      .then(() => this.options.start({ ...this.spec, session: { kind: 'resume', id: this.id } }))
      .then((agent) => {
        this.options.onLog?.(`session ${this.id}: agent restarted from its log`);
        this.adopt(agent);
        return agent;
      })
      .finally(() => {
        this.starting = undefined;
      });
    return this.starting;
  }

  private adopt(agent: AgentSession): void {
    this.agent = agent;
    this.unsubscribe = agent.subscribe((event: EngineEvent) => this.push(event));
    this.touch();
  }

  private async stopAgent(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    this.unsubscribe?.();
    if (!agent) return this.stopping;
    const stopping = agent.close().finally(() => {
      if (this.stopping === stopping) this.stopping = undefined;
    });
    this.stopping = stopping;
    await stopping;
  }

  /** Marks activity and re-arms the idle stop. */
  private touch(): void {
    this.lastActivity = new Date();
    clearTimeout(this.idleTimer);
    if (this.closed) return;
    this.idleTimer = setTimeout(() => {
      if (this.running || this.starting || !this.agent) return;
      this.options.onLog?.(`session ${this.id}: idle, stopping its executor`);
      void this.stopAgent();
    }, this.options.idleMs);
    this.idleTimer.unref();
  }

  private assertOpen(): void {
    if (this.closed) throw new ServeError('not_found', `session ${this.id} was deleted`);
  }
}

/** The engine's requests a client answers, and the command type that answers each. */
const ANSWERS: Partial<Record<string, CommandRequest['type']>> = {
  approval_request: 'approval_response',
  ask_user_request: 'ask_user_response',
  loop_cap_reached: 'loop_decision',
};

/** A run that never reached the model: an error (its `error` added) or cancelled before it began. */
function emptyResult(model: string, sessionId: string, started: number): RunResult {
  return {
    type: 'result',
    status: 'error',
    finalMessage: '',
    turns: 0,
    toolCalls: 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    model,
    sessionId,
    durationMs: Math.round(performance.now() - started),
  };
}
