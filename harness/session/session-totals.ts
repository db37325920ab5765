import type { TokenUsage } from '../../shared/engine-events.js';
import type { SessionEvent } from '../../shared/session-format.js';
import { estimateCostUsd } from '../provider/model-catalog.js';
import type { LoadedSession } from './session-reader.js';

/** Tokens spent and what they cost. */
export interface SessionTotals {
  usage: TokenUsage;
  /** Estimated USD of the priced part of `usage`. */
  costUsd: number;
  /** Models used whose price is unknown: `costUsd` leaves their tokens out. */
  unpricedModels: string[];
}

export function zeroTotals(): SessionTotals {
  return {
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0,
    unpricedModels: [],
  };
}

/**
 * The events this session spent tokens on: all of them, except in a fork,
 * whose copied path was paid for by the session it was forked from.
 */
export function ownEvents(session: LoadedSession): readonly SessionEvent[] {
  const forkPoint = session.header.forkedFrom?.eventId;
  if (!forkPoint) return session.events;
  return session.events.slice(session.events.findIndex((event) => event.id === forkPoint) + 1);
}

/** What this session's own assistant messages cost, each at the price of the model that wrote it. */
export function ownTotals(session: LoadedSession): SessionTotals {
  const { usage } = zeroTotals();
  let costUsd = 0;
  const unpriced = new Set<string>();
  for (const { payload } of ownEvents(session)) {
    // Replies and the summaries and titles it asked for are what a session pays for.
    if (
      payload.type !== 'assistant_message' &&
      !((payload.type === 'compaction' || payload.type === 'title') && payload.usage)
    )
      continue;
    if (!payload.usage || !payload.model) continue;
    usage.inputTokens += payload.usage.inputTokens;
    usage.outputTokens += payload.usage.outputTokens;
    usage.cacheReadTokens += payload.usage.cacheReadTokens;
    usage.cacheWriteTokens += payload.usage.cacheWriteTokens;
    const cost = estimateCostUsd(payload.model, payload.usage);
    if (cost === undefined) unpriced.add(payload.model);
    else costUsd += cost;
  }
  return { usage, costUsd, unpricedModels: [...unpriced] };
}

/** Sub-agent sessions this session's own events link to. */
export function linkedChildren(session: LoadedSession): string[] {
  const ids: string[] = [];
  for (const { payload } of ownEvents(session))
    if (payload.type === 'subagent_link') ids.push(payload.childSessionId);
  return ids;
}

export function addTotals(a: SessionTotals, b: SessionTotals): SessionTotals {
  return {
    usage: {
      inputTokens: a.usage.inputTokens + b.usage.inputTokens,
      outputTokens: a.usage.outputTokens + b.usage.outputTokens,
      cacheReadTokens: a.usage.cacheReadTokens + b.usage.cacheReadTokens,
      cacheWriteTokens: a.usage.cacheWriteTokens + b.usage.cacheWriteTokens,
    },
    costUsd: a.costUsd + b.costUsd,
    unpricedModels: [...new Set([...a.unpricedModels, ...b.unpricedModels])],
  };
}

/** One session in a roll-up: what it spent itself and the sessions it spawned. */
export interface TotalsNode {
  own: SessionTotals;
  children: readonly string[];
}

/**
 * A session's totals including its sub-agents', recursively. Each session
 * counts once however it is linked (by `subagent_link` and by its header's
 * `parentSessionId`); children missing from `nodes` count as zero.
 */
export function rollUpTotals(id: string, nodes: ReadonlyMap<string, TotalsNode>): SessionTotals {
  const seen = new Set<string>([id]);
  let totals = zeroTotals();
  const stack = [id];
  while (stack.length > 0) {
    const node = nodes.get(stack.pop()!);
    if (!node) continue;
    totals = addTotals(totals, node.own);
    for (const child of node.children) {
      if (seen.has(child)) continue;
      seen.add(child);
      stack.push(child);
    }
  }
  return totals;
}
