import type { DispatchFailure } from '../../shared/dispatch-telemetry.js';
import type { AgentPath, EngineEvent } from '../../shared/engine-events.js';
import type { ToolResult } from '../../shared/tool.js';
import type { SubagentSettings } from '../runtime/agent-settings.js';
import { AgentIds } from './agent-ids.js';

/** Background children running at once, at most, unless the settings say otherwise. */
export const DEFAULT_BACKGROUND_LIMIT = 4;

/**
 * `subagents` whose background children a run waits for before it ends: a frontend whose prompt
 * has one result (headless `-p`, serve, ACP) must carry theirs; the terminal UI does not wait.
 */
export function waitingForBackground(sub: SubagentSettings | undefined): SubagentSettings | undefined {
  return sub && { ...sub, background: { ...sub.background, waitAtEnd: true } };
}

/** What a background child's run ends with: the report its parent reads, and its failure, if any. */
export interface BackgroundEnding {
  result: ToolResult;
  failure?: DispatchFailure | undefined;
}

/** A background child as `agent_status` reports it (a union on `state`, each with its own fields). */
export type BackgroundStatus = {
  id: string;
  task: string;
  turns: number;
  tokens: number;
  elapsed_ms: number;
} & (
  | { state: 'running'; current_tool?: string }
  | { state: 'completed' | 'failed'; failure?: DispatchFailure }
);

interface Child {
  id: string;
  agent: AgentPath;
  task: string;
  /** The spawn_agent call that started it. */
  callId: string;
  controller: AbortController;
  startedAt: number;
  endedAt?: number;
  turns: number;
  tokens: number;
  currentTool?: string | undefined;
  ending?: BackgroundEnding;
  /** Its result reached the parent (a message, or agent_wait's result): never twice. */
  delivered: boolean;
  done: Promise<void>;
}

/** A background child's start, as `spawn_agent` hands it over. */
export interface BackgroundStart {
  id: string;
  agent: AgentPath;
  task: string;
  callId: string;
  /** Runs the child to its end under `signal` (aborted by cancel, interrupt, close); never throws. */
  run(signal: AbortSignal, observe: (event: EngineEvent) => void): Promise<BackgroundEnding>;
}

/**
 * One agent's background children (issue #25): `spawn_agent` with `background: true` starts them
 * here and returns at once; `agent_status` and `agent_wait` read them; their results reach the
 * parent as a message at its next turn boundary (`take`, `settle`). The registry owns their
 * lifetime: `cancel`, `cancelAll` (the parent interrupted) and `close` (its session closed, which
 * waits until every child's executor has stopped), so none outlives its session.
 */
export class BackgroundAgents {
  private readonly children = new Map<string, Child>();
  private readonly changed = new Set<() => void>();
  private closed = false;

  constructor(
    private readonly limit: number = DEFAULT_BACKGROUND_LIMIT,
    private readonly ids: AgentIds = new AgentIds(),
  ) {}

  /** The next background child's id (`bg-1`, `bg-2`… for the session, resumes included: never reused). */
  nextId(): string {
    return this.ids.next('bg');
  }

  /** Why no child may start now, or undefined when one may. */
  refusal(): string | undefined {
    if (this.closed) return 'the session is closing';
    const running = this.running().length;
    if (running >= this.limit)
      return `${running} background sub-agents are running, the most allowed at once (setting "backgroundAgents", now ${this.limit}); wait for one with agent_wait, or run this one in the foreground`;
    return undefined;
  }

  /** Starts a child (after `refusal()` said it may). */
  start(start: BackgroundStart): void {
    const controller = new AbortController();
    const child: Child = {
      id: start.id,
      agent: start.agent,
      task: start.task,
      callId: start.callId,
      controller,
      startedAt: performance.now(),
      turns: 0,
      tokens: 0,
      delivered: false,
      done: Promise.resolve(),
    };
    const own = (event: EngineEvent): boolean =>
      event.agent.length === child.agent.length && event.agent.every((part, i) => part === child.agent[i]);
    const observe = (event: EngineEvent): void => {
      if (!own(event)) return;
      if (event.type === 'turn_start') child.turns = Math.max(child.turns, event.turn);
      else if (event.type === 'tool_call_start') child.currentTool = event.name;
      else if (event.type === 'tool_call_result') child.currentTool = undefined;
      else if (event.type === 'usage')
        child.tokens =
          event.total.inputTokens +
          event.total.outputTokens +
          event.total.cacheReadTokens +
          event.total.cacheWriteTokens;
    };
    this.children.set(child.id, child);
    child.done = start
      .run(controller.signal, observe)
      .catch(
        (error): BackgroundEnding => ({
          result: { output: `sub-agent failed: ${String(error)}`, isError: true, code: 'internal' },
          failure: 'executor',
        }),
      )
      .then((ending) => {
        child.ending = ending;
        child.endedAt = performance.now();
        child.currentTool = undefined;
        this.notify();
      });
  }

  /** Ids of the children still running. */
  running(): string[] {
    return [...this.children.values()].filter((child) => !child.ending).map((child) => child.id);
  }

  /** Whether `id` is a child of this registry. */
  has(id: string): boolean {
    return this.children.has(id);
  }

  /** The status of `ids` (all when empty), in the order they started. */
  status(ids: readonly string[] = []): BackgroundStatus[] {
    const chosen = ids.length > 0 ? ids : [...this.children.keys()];
    return chosen.flatMap((id) => {
      const child = this.children.get(id);
      return child ? [statusOf(child)] : [];
    });
  }

  /**
   * Waits until every child of `ids` (all running when empty) has ended, `timeoutMs` passed or
   * `signal` aborted. Returns the ended ones' results (marked delivered: no message repeats them)
   * and the status of those still running.
   */
  async wait(
    ids: readonly string[],
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<{ ended: { status: BackgroundStatus; result: ToolResult }[]; running: BackgroundStatus[] }> {
    const chosen = (ids.length > 0 ? ids : this.running()).flatMap((id) => {
      const child = this.children.get(id);
      return child ? [child] : [];
    });
    const allDone = Promise.all(chosen.map((child) => child.done));
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      allDone,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        onAbort = resolve;
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    const ended = chosen.filter((child) => child.ending);
    for (const child of ended) child.delivered = true;
    return {
      ended: ended.map((child) => ({
        status: statusOf(child),
        result: (child.ending as BackgroundEnding).result,
      })),
      running: chosen.filter((child) => !child.ending).map(statusOf),
    };
  }

  /** Results of children that ended and were not delivered yet, as the parent reads them; marks them delivered. */
  take(): string[] {
    const messages: string[] = [];
    for (const child of this.children.values()) {
      if (!child.ending || child.delivered) continue;
      child.delivered = true;
      messages.push(arrivalMessage(child));
    }
    return messages;
  }

  /**
   * At the end of the parent's turn: what arrived, or, with `waitForRunning` (a headless run,
   * whose result must include its children's), waits for the next child to end first while any
   * runs. Resolves to [] when nothing is due, or once `signal` aborts.
   */
  async settle(signal: AbortSignal, waitForRunning: boolean): Promise<string[]> {
    for (;;) {
      const arrived = this.take();
      if (arrived.length > 0 || !waitForRunning || signal.aborted) return arrived;
      const running = [...this.children.values()].filter((child) => !child.ending);
      if (running.length === 0) return [];
      await new Promise<void>((resolve) => {
        const onAbort = (): void => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        void Promise.race(running.map((child) => child.done)).then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
  }

  /** Cancels one running child; false when there is no such child running. */
  cancel(id: string): boolean {
    const child = this.children.get(id);
    if (!child || child.ending) return false;
    child.controller.abort(new DOMException('cancelled', 'AbortError'));
    return true;
  }

  /** Cancels every running child (the parent was interrupted or cancelled). */
  cancelAll(): void {
    for (const id of this.running()) this.cancel(id);
  }

  /** Resolves once no child runs (those cancelled have stopped, with their executors). */
  async idle(): Promise<void> {
    await Promise.all([...this.children.values()].map((child) => child.done));
  }

  /** Calls `listener` whenever a child ends; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.changed.add(listener);
    return () => this.changed.delete(listener);
  }

  /** Cancels every child and resolves once each has ended and its executor stopped; no child starts after. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelAll();
    await Promise.all([...this.children.values()].map((child) => child.done));
  }

  private notify(): void {
    for (const listener of this.changed) listener();
  }
}

function statusOf(child: Child): BackgroundStatus {
  const elapsed = Math.round((child.endedAt ?? performance.now()) - child.startedAt);
  const common = {
    id: child.id,
    task: child.task,
    turns: child.turns,
    tokens: child.tokens,
    elapsed_ms: elapsed,
  };
  if (!child.ending)
    return { ...common, state: 'running', ...(child.currentTool && { current_tool: child.currentTool }) };
  const { failure } = child.ending;
  return {
    ...common,
    state: child.ending.result.isError ? 'failed' : 'completed',
    ...(failure && { failure }),
  };
}

/** What the parent reads when a child's result arrives at a turn boundary. */
function arrivalMessage(child: Child): string {
  const ending = child.ending as BackgroundEnding;
  const how = ending.result.isError ? `failed${ending.failure ? ` (${ending.failure})` : ''}` : 'completed';
  return `[Skate: background sub-agent ${child.id} ${how}. Its task was: ${child.task.slice(0, 200)}]\n${ending.result.output}`;
}
