import type { AgentIdSeed } from '../session/session-agent-ids.js';

/**
 * A session's sub-agent ids: `agent-1`, `agent-2`… for foreground children and `bg-1`… for
 * background ones, never reused in the session, across prompts (`spawn_agent` is rebuilt per run)
 * and across `--resume` (the counter starts after the highest id the log holds).
 */
export class AgentIds {
  private readonly used: AgentIdSeed = { agent: 0, bg: 0 };

  constructor(seed?: AgentIdSeed) {
    if (seed) this.raise(seed);
  }

  next(kind: keyof AgentIdSeed): string {
    return `${kind}-${++this.used[kind]}`;
  }

  /** Continue after `seed` where it is higher (a session resumed into this agent). */
  raise(seed: AgentIdSeed): void {
    this.used.agent = Math.max(this.used.agent, seed.agent);
    this.used.bg = Math.max(this.used.bg, seed.bg);
  }
}
