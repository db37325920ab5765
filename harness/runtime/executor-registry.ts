import type { EngineEvent } from '../../shared/engine-events.js';
import type { NetworkDenialReason } from '../../shared/network-allowlist.js';
import { networkLabel, type PolicyLimits, type ResolvedPolicy } from '../../shared/policy.js';

/** Whose executor a row is: an agent's (by activity), a sub-agent's, or an MCP server's. */
export type ExecutorRole = 'main' | 'plan' | 'execute' | 'sub-agent' | 'mcp';

export type ExecutorState = 'starting' | 'ready' | 'restarting' | 'stopped';

/** The policy an executor enforces, in short. */
export interface ExecutorPolicySummary {
  name: string;
  read: readonly string[];
  /** Paths hidden inside the readable roots. */
  readDenied: number;
  write: readonly string[];
  /** `off`, `on`, `3 hosts`. */
  network: string;
  limits: PolicyLimits;
}

/**
 * A refusal the harness saw happen, never a guess: the network proxy's (with host and port), the
 * executor's own policy check (a tool result `denied` that no rule, hook or person caused), or the
 * kernel's (a tool's output reporting EROFS or EACCES, the sandbox's read-only mounts at work).
 */
export type ExecutorDenial =
  | {
      kind: 'network';
      at: number;
      host: string;
      port: number;
      reason: NetworkDenialReason;
      command?: string | undefined;
    }
  | { kind: 'policy' | 'kernel'; at: number; tool: string; detail: string };

/** One executor as the panel shows it; replaced (never changed) on every change. */
export interface ExecutorRow {
  id: number;
  role: ExecutorRole;
  /** `main`, a sub-agent's path (`agent-1/agent-2`), an MCP server's name. */
  name: string;
  pid: number | undefined;
  state: ExecutorState;
  /** Undefined for a remote executor: its server chose the policy. */
  policy: ExecutorPolicySummary | undefined;
  /** When its current process started (a restart starts the clock again). */
  startedAt: number;
  stoppedAt?: number;
  /** Tool calls it ran (the harness's own tools, and calls refused before they reached it, are not counted). */
  toolCalls: number;
  /** The latest denials, oldest first (at most MAX_KEPT_DENIALS); `denialCount` counts all of them. */
  denials: readonly ExecutorDenial[];
  denialCount: number;
}

/** What the runtime holds for one executor it started: it reports the executor's changes through it. */
export interface ExecutorSlot {
  readonly id: number;
  update(change: Partial<Pick<ExecutorRow, 'pid' | 'state' | 'policy'>>): void;
  /** An event of the agent this executor serves; `servedHere` says whether a tool of that name runs on it. */
  observe(event: EngineEvent, servedHere: (tool: string) => boolean): void;
  stopped(): void;
}

export const MAX_KEPT_DENIALS = 20;
/** Stopped executors kept for the panel; older ones are dropped. */
export const MAX_STOPPED_ROWS = 20;

/** Lines of a tool's output that say the kernel refused: a read-only mount, or no permission. */
const KERNEL_REFUSAL =
  /\b(EROFS|EACCES|EPERM)\b|read-only file system|permission denied|operation not permitted/i;

export function policySummary(policy: ResolvedPolicy): ExecutorPolicySummary {
  return {
    name: policy.name,
    read: policy.read.allow,
    readDenied: policy.read.deny.length,
    write: policy.write.allow,
    network: networkLabel(policy.network),
    limits: policy.limits,
  };
}

/**
 * Every executor of one session tree, fed by the runtime (started, ready, restarting, stopped) and
 * by its agents' events (tool calls, denials). A frontend reads `rows()` when told of a change; it
 * never polls processes.
 */
export class ExecutorRegistry {
  private list: ExecutorRow[] = [];
  private nextId = 1;
  private readonly listeners = new Set<() => void>();
  /** Calls refused before they reached an executor (rules, hooks, a person), until their result. */
  private readonly blocked = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  rows(): readonly ExecutorRow[] {
    return this.list;
  }

  /** Calls `listener` after every change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  add(
    init: Pick<ExecutorRow, 'role' | 'name' | 'state' | 'policy'> & { pid?: number | undefined },
  ): ExecutorSlot {
    const id = this.nextId++;
    const row: ExecutorRow = {
      id,
      role: init.role,
      name: init.name,
      pid: init.pid,
      state: init.state,
      policy: init.policy,
      startedAt: this.now(),
      toolCalls: 0,
      denials: [],
      denialCount: 0,
    };
    this.list = [...this.list, row];
    this.changed();
    return {
      id,
      update: (change) =>
        this.change(id, (current) => ({
          ...current,
          ...change,
          // A new process (a restart, a network switch) starts its uptime again.
          ...(change.pid !== undefined && change.pid !== current.pid && { startedAt: this.now() }),
        })),
      observe: (event, servedHere) => this.observe(id, event, servedHere),
      stopped: () => {
        this.change(id, (current) =>
          current.state === 'stopped' ? current : { ...current, state: 'stopped', stoppedAt: this.now() },
        );
        this.pruneStopped();
      },
    };
  }

  private observe(id: number, event: EngineEvent, servedHere: (tool: string) => boolean): void {
    switch (event.type) {
      case 'action_blocked':
        this.blocked.add(event.id);
        return;
      case 'network_denied': {
        const denial: ExecutorDenial = {
          kind: 'network',
          at: this.now(),
          host: event.host,
          port: event.port,
          reason: event.reason,
          ...(event.command !== undefined && { command: event.command }),
        };
        this.change(id, (row) => withDenial(row, denial));
        return;
      }
      case 'tool_call_result': {
        if (this.blocked.delete(event.id)) return;
        // An MCP tool runs on its server's executor, not on the agent's.
        const target = this.mcpRowFor(event.name) ?? (servedHere(event.name) ? id : undefined);
        if (target === undefined) return;
        const denial = denialOf(event, this.now());
        this.change(target, (row) => {
          const counted = { ...row, toolCalls: row.toolCalls + 1 };
          return denial ? withDenial(counted, denial) : counted;
        });
        return;
      }
      default:
        return;
    }
  }

  private mcpRowFor(tool: string): number | undefined {
    if (!tool.startsWith('mcp__')) return undefined;
    // The newest row of that server: a server stopped when idle and started again is a new row.
    for (let i = this.list.length - 1; i >= 0; i--) {
      const row = this.list[i]!;
      if (row.role === 'mcp' && tool.startsWith(`mcp__${row.name}__`)) return row.id;
    }
    return undefined;
  }

  private change(id: number, update: (row: ExecutorRow) => ExecutorRow): void {
    const index = this.list.findIndex((row) => row.id === id);
    if (index === -1) return;
    const before = this.list[index]!;
    const after = update(before);
    if (after === before) return;
    this.list = this.list.with(index, after);
    this.changed();
  }

  private pruneStopped(): void {
    const stopped = this.list.filter((row) => row.state === 'stopped');
    if (stopped.length <= MAX_STOPPED_ROWS) return;
    const dropped = new Set(stopped.slice(0, stopped.length - MAX_STOPPED_ROWS).map((row) => row.id));
    this.list = this.list.filter((row) => !dropped.has(row.id));
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function withDenial(row: ExecutorRow, denial: ExecutorDenial): ExecutorRow {
  const denials = [...row.denials, denial].slice(-MAX_KEPT_DENIALS);
  return { ...row, denials, denialCount: row.denialCount + 1 };
}

/** The denial a tool result reports, if it reports one. */
function denialOf(
  event: Extract<EngineEvent, { type: 'tool_call_result' }>,
  at: number,
): ExecutorDenial | undefined {
  if (event.isError && event.code === 'denied') {
    return { kind: 'policy', at, tool: event.name, detail: firstLine(event.output) };
  }
  // Only a failed call's, and only its first lines: a file that merely mentions "permission denied"
  // (read, or printed by a command that went on to succeed) is not a refusal.
  if (!event.isError) return undefined;
  const line = event.output
    .slice(0, 4_000)
    .split('\n')
    .find((text) => KERNEL_REFUSAL.test(text));
  return line === undefined
    ? undefined
    : { kind: 'kernel', at, tool: event.name, detail: line.trim().slice(0, 300) };
}

function firstLine(text: string): string {
  return (text.split('\n', 1)[0] ?? '').slice(0, 300);
}
