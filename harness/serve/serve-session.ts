import { randomUUID } from 'node:crypto';
import type { EngineEvent } from '../../shared/engine-events.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { type NetworkPolicy, settingFromNetwork } from '../../shared/policy.js';
import type { RunResult } from '../../shared/run-result.js';
import type {
  AnswerCommand,
  PromptRequest,
  RequestTimeout,
  SessionCommand,
  SessionInfo,
} from '../../shared/serve-api.js';
import { jsonSchemaContract, type ResultContract } from '../agents/result-contracts.js';
import type { ApprovalMode } from '../engine/engine-types.js';
import { expandPromptCommand } from '../mcp/expand-prompt-command.js';
import { planFilePath } from '../planning/plan-file.js';
import type { AgentSession } from '../runtime/agent-session.js';
import type { Activity, SessionSettings } from '../runtime/agent-settings.js';
import { runResultOf } from '../runtime/run-result-of.js';
import { checkModel } from './check-model.js';
import { RunBuffer } from './run-buffer.js';
import { ServeError } from './serve-error.js';
import { grantNetwork, grantPlanning } from './session-policy.js';

/** How a session's agent is started (and restarted from its log after an idle stop). */
export interface AgentStart {
  workspace: string;
  policy: ResolvedPolicy;
  /** The server's policy for this workspace: the most any switch of the session may get. */
  ceiling: ResolvedPolicy;
  approval: ApprovalMode;
  model: string;
  /** Planning or carrying out a plan; default a plain agent. */
  activity?: Activity;
  session: SessionSettings;
}

export interface ServeSessionOptions {
  start(settings: AgentStart): Promise<AgentSession>;
  /** An idle session's agent (and executor) is stopped after this long; restarted on the next prompt. */
  idleMs: number;
  /** Messages kept per run for reconnects. */
  replayLimit: number;
  /** A request of the engine (approval, ask_user, turn cap) nobody answers is answered as denied after this long. */
  requestTimeoutMs: number;
  /** Takes one of the server's run slots, or throws `too_many_runs`; the returned function gives it back. */
  takeRunSlot(): () => void;
  /** An error message as the client may see it (no host paths), for the `error` messages of a run. */
  publicMessage(message: string): string;
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
  /** Aborts the MCP prompt being fetched for the run's prompt (`/mcp__server__prompt`), if any. */
  private expanding: AbortController | undefined;
  private nextEventId = 1;
  /** Requests of the running engine a client may answer, by id: the answer type each waits for, and its timeout. */
  private readonly pending = new Map<string, { answer: Answer; timer: NodeJS.Timeout }>();
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** A model, network or activity switch in progress: prompts and other switches wait for it (`busy`). */
  private switching: Promise<void> | undefined;
  /** The Skate session log the agent writes: `id` until a switch to plan or execute starts a linked one. */
  private logId: string;
  /** The network the agent's executor reported at its last switch (the granted one before any). */
  private network: NetworkPolicy;
  private readonly spec: Omit<AgentStart, 'session'>;

  private constructor(
    spec: Omit<AgentStart, 'session'>,
    agent: AgentSession,
    private readonly options: ServeSessionOptions,
  ) {
    const id = agent.sessionId;
    if (!id) throw new ServeError('internal', 'the agent records no session log');
    this.id = id;
    this.logId = id;
    this.spec = { ...spec };
    this.network = spec.activity?.kind === 'plan' ? { mode: 'off' } : spec.policy.network;
    this.adopt(agent);
  }

  get model(): string {
    return this.spec.model;
  }

  get mode(): Activity['kind'] {
    return this.spec.activity?.kind ?? 'agent';
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
    this.syncNetwork();
    const status = this.running ? 'running' : this.agent ? 'idle' : 'stopped';
    return {
      id: this.id,
      workspace: this.spec.workspace,
      policy: this.mode === 'plan' ? 'plan' : this.spec.policy.name,
      network: settingFromNetwork(this.network),
      approval: this.spec.approval,
      model: this.model,
      status,
      mode: this.mode,
      ...(this.mode === 'plan' && { planFile: planFilePath(this.spec.workspace) }),
      agentSessionId: this.logId,
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
    this.assertIdle();
    const outputSchema = request.outputSchema && outputContract(request.outputSchema);
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
          result = {
            ...emptyResult(this.model, this.id, started),
            status: 'cancelled',
            subtype: 'error_during_execution',
          };
        } else {
          // `/mcp__server__prompt a b`: the server's prompt is the turn, as in -p, the terminal UI and ACP.
          const expanding = new AbortController();
          this.expanding = expanding;
          const expanded = await expandPromptCommand(agent.promptCommands(), request.text, expanding.signal);
          this.expanding = undefined;
          if (this.interruptedEarly) {
            result = {
              ...emptyResult(this.model, this.id, started),
              status: 'cancelled',
              subtype: 'error_during_execution',
            };
          } else if (expanded.kind === 'error') {
            // No model turn: the client's command was wrong (`usage`) or the server failed it.
            const message = this.options.publicMessage(expanded.error);
            this.push({ type: 'error', agent: [], message });
            result = {
              ...emptyResult(this.model, this.id, started),
              error: message,
              errorCode: 'mcp_prompt',
            };
          } else {
            const images = [
              ...(expanded.kind === 'prompt' ? expanded.images : []),
              ...(request.images ?? []),
            ];
            const outcome = await agent.prompt(expanded.kind === 'prompt' ? expanded.text : request.text, {
              ...(images.length > 0 && { images }),
              ...(outputSchema && { outputSchema }),
            });
            result = runResultOf(outcome, performance.now() - started);
          }
        }
      } catch (error) {
        const failure = ServeError.fromUnknown(error).message;
        this.options.onLog?.(`session ${this.id}: ${failure}`);
        const message = this.options.publicMessage(failure);
        this.push({ type: 'error', agent: [], message });
        result = { ...emptyResult(this.model, this.id, started), error: message };
      }
      this.push(result);
      run.end();
      for (const { timer } of this.pending.values()) clearTimeout(timer);
      this.pending.clear();
      release();
      this.touch();
    })();
    return run;
  }

  /**
   * The run a reconnecting client reads: the current or last one, checked
   * against its Last-Event-ID. An id past the session's latest event was never
   * sent (by this server, since it started): refused rather than waited on.
   */
  runFor(lastEventId: number | undefined): RunBuffer {
    const run = this.run;
    if (!run) throw new ServeError('not_found', `session ${this.id} has had no run yet`);
    const latest = this.nextEventId - 1;
    if (lastEventId !== undefined && lastEventId > latest) {
      throw new ServeError(
        'bad_request',
        `Last-Event-ID ${lastEventId} is past the session's latest event (${latest}), so there is nothing to replay after it; reconnect with an id this server sent, or without one for the whole current run`,
      );
    }
    if (lastEventId !== undefined && lastEventId < run.firstId - 1) {
      throw new ServeError(
        'replay_gone',
        `events after ${lastEventId} belong to an earlier run, no longer kept; the transcript has the conversation (GET /v1/sessions/${this.id}/transcript)`,
      );
    }
    return run;
  }

  /** An answer (approval, ask_user, loop cap) or an interrupt for the running engine. */
  command(command: AnswerCommand): void {
    this.assertOpen();
    this.touch();
    if (command.type === 'interrupt') {
      if (!this.running) throw new ServeError('not_pending', `session ${this.id} has no run in progress`);
      this.interrupt();
      return;
    }
    if (command.type === 'cancel_agent') {
      if (!this.agent?.cancelBackground(command.agentId)) {
        throw new ServeError(
          'not_pending',
          `session ${this.id} has no background sub-agent ${command.agentId} running (it ended, or never was)`,
        );
      }
      return;
    }
    const waiting = this.pending.get(command.requestId)?.answer;
    if (waiting !== command.type || !this.agent?.answer(command)) {
      throw new ServeError(
        'not_pending',
        waiting
          ? `request ${command.requestId} waits for ${waiting}, not ${command.type}`
          : `session ${this.id} has no pending request ${command.requestId} (answered already, timed out, or its run ended)`,
      );
    }
    clearTimeout(this.pending.get(command.requestId)?.timer);
    this.pending.delete(command.requestId);
  }

  /**
   * Switches the idle session's model, network or activity through the
   * runtime, as the terminal UI and ACP do, each checked against the
   * server's policy first. Plan and execute each replace the agent with a
   * linked one on its own executor; the session keeps its id.
   */
  async change(command: SessionCommand): Promise<void> {
    this.assertOpen();
    this.assertIdle();
    const switching = (async () => {
      switch (command.type) {
        case 'set_model': {
          checkModel(command.model);
          (await this.live()).setModel(command.model);
          this.spec.model = command.model;
          break;
        }
        case 'set_network': {
          if (this.mode === 'plan') {
            throw new ServeError('forbidden', 'planning runs with the network off, as `skate plan` does');
          }
          const policy = grantNetwork(this.spec.policy, this.spec.ceiling, command.network);
          this.network = await (await this.live()).setNetwork(command.network);
          this.spec.policy = { ...policy, network: this.network };
          break;
        }
        case 'set_activity': {
          if (command.activity === 'plan') {
            if (this.mode === 'plan') break;
            await grantPlanning(this.spec.workspace, this.spec.ceiling);
            await this.replaceAgent(await (await this.live()).startPlanning());
          } else {
            await this.replaceAgent(await (await this.live()).execute(command.plan));
          }
          break;
        }
      }
    })();
    this.switching = switching.catch(() => undefined);
    try {
      await switching;
    } finally {
      this.switching = undefined;
      this.touch();
    }
  }

  /** A new session (its own agent and executor) holding this one's conversation up to `atEventId`. */
  async fork(atEventId: string | undefined): Promise<ServeSession> {
    this.assertOpen();
    this.assertIdle();
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
    // A switch in progress ends with its new agent adopted; that one is stopped here too.
    await this.switching;
    await this.stopAgent();
  }

  /** Interrupts the run in progress, if any, even one whose agent is still restarting. */
  interrupt(): void {
    if (this.running) this.interruptedEarly = true;
    this.expanding?.abort();
    this.agent?.interrupt();
  }

  private push(message: Parameters<RunBuffer['push']>[0]): void {
    const run = this.run;
    if (!run || run.isEnded) return;
    const answer = ANSWERS[message.type];
    if (answer && 'requestId' in message) {
      const { requestId } = message;
      const timer = setTimeout(() => this.expire(requestId, answer), this.options.requestTimeoutMs);
      timer.unref();
      this.pending.set(requestId, { answer, timer });
    }
    this.nextEventId = run.push(message).id + 1;
  }

  /** Answers a request nobody answered in time as denied (no answers, stop), and says so in the stream. */
  private expire(requestId: string, answer: Answer): void {
    if (!this.pending.delete(requestId)) return;
    const seconds = this.options.requestTimeoutMs / 1000;
    const expired: RequestTimeout = {
      type: 'request_timeout',
      requestId,
      answer: TIMEOUT_ANSWERS[answer].summary,
      afterSeconds: seconds,
    };
    this.push(expired);
    this.options.onLog?.(`session ${this.id}: request ${requestId} had no answer in ${seconds} s`);
    this.agent?.answer(TIMEOUT_ANSWERS[answer].command(requestId, seconds));
  }

  /** Switches to `next` (a planner or executor linked to the agent before), which is closed. */
  private async replaceAgent(next: AgentSession): Promise<void> {
    const old = this.agent;
    this.unsubscribe?.();
    this.agent = undefined;
    this.adopt(next);
    this.logId = next.sessionId ?? this.logId;
    this.spec.activity = next.activity;
    await old?.close();
    this.network = await next.network();
    this.spec.policy = { ...this.spec.policy, network: this.network };
  }

  /** The agent, restarted from the session log when it was stopped while idle. */
  private async live(): Promise<AgentSession> {
    if (this.agent) return this.agent;
    this.starting ??= (this.stopping ?? Promise.resolve())
      .then(() => this.options.start({ ...this.spec, session: { kind: 'resume', id: this.logId } }))
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

  /**
   * Takes the live agent's list as the session's: an answer to a network question ("Allow for
   * this session", "Never") changes it without a `set_network`, and it must outlive an idle stop.
   */
  private syncNetwork(): void {
    const now = this.agent?.networkNow;
    if (!now || this.mode === 'plan' || now.mode !== 'allowlist' || this.network.mode !== 'allowlist') return;
    this.network = now;
    this.spec.policy = { ...this.spec.policy, network: now };
  }

  private async stopAgent(): Promise<void> {
    this.syncNetwork();
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
      if (this.running || this.switching || this.starting || !this.agent) return;
      this.options.onLog?.(`session ${this.id}: idle, stopping its executor`);
      void this.stopAgent();
    }, this.options.idleMs);
    this.idleTimer.unref();
  }

  private assertIdle(): void {
    if (this.running) {
      throw new ServeError(
        'busy',
        `session ${this.id} is running ${this.run?.runId}; wait for its result, or interrupt it (POST /v1/sessions/${this.id}/commands {"type":"interrupt"})`,
      );
    }
    if (this.switching) throw new ServeError('busy', `session ${this.id} is switching its agent; retry`);
  }

  private assertOpen(): void {
    if (this.closed) throw new ServeError('not_found', `session ${this.id} was deleted`);
  }
}

type Answer = Exclude<AnswerCommand['type'], 'interrupt' | 'cancel_agent'>;

/** The engine's requests a client answers, and the command type that answers each. */
const ANSWERS: Partial<Record<string, Answer>> = {
  approval_request: 'approval_response',
  ask_user_request: 'ask_user_response',
  loop_cap_reached: 'loop_decision',
};

/** How a request is answered when its time is up: denied, with nothing, stopped. */
const TIMEOUT_ANSWERS: {
  [K in Answer]: {
    summary: RequestTimeout['answer'];
    command(requestId: string, seconds: number): Extract<AnswerCommand, { type: K }>;
  };
} = {
  approval_response: {
    summary: 'rejected',
    command: (requestId, seconds) => ({
      type: 'approval_response',
      requestId,
      decision: 'reject',
      feedback: `Nobody answered this approval request within ${seconds} s, so it was denied.`,
    }),
  },
  ask_user_response: {
    summary: 'no_answer',
    command: (requestId) => ({ type: 'ask_user_response', requestId, answers: [] }),
  },
  loop_decision: {
    summary: 'stopped',
    command: (requestId) => ({ type: 'loop_decision', requestId, decision: 'stop' }),
  },
};

/** A prompt's `outputSchema` as a result contract; a schema that cannot be used is the client's error. */
function outputContract(schema: Record<string, unknown>): ResultContract {
  try {
    return jsonSchemaContract('outputSchema', schema);
  } catch (error) {
    throw new ServeError('bad_request', `outputSchema: ${(error as Error).message}`);
  }
}

/** A run that never reached the model: an error (its `error` added) or cancelled before it began. */
function emptyResult(model: string, sessionId: string, started: number): RunResult {
  return runResultOf(
    {
      status: 'error',
      finalMessage: '',
      turns: 0,
      toolCalls: 0,
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model,
      sessionId,
      error: undefined,
      errorCode: undefined,
    },
    performance.now() - started,
  );
}
