import { formatPolicyReport, policyReport } from '../policy/policy-report.js';
import { formatCost, formatUsage } from '../session/format-units.js';
import { sessionFile } from '../session/session-paths.js';
import { loadSession } from '../session/session-reader.js';
import { sessionTotals } from '../session/session-store.js';
import { ownTotals } from '../session/session-totals.js';
import type { AgentBackend } from './agent-backend.js';
import type { Overlay, UiState } from './ui-state.js';

/**
 * `:policy`: what `skate policy show` prints for the policy the executor
 * runs under now (the network as switched), and the approval mode.
 */
export async function policyOverlay(backend: AgentBackend): Promise<Overlay> {
  const approval = `approval          ${backend.approval} (:approval auto | ask | deny-writes)`;
  if (!backend.policy) {
    return {
      type: 'message',
      title: 'policy (any key closes)',
      lines: [
        'a remote executor: its server chose the policy and enforces it (skate executor serve --policy)',
        approval,
      ],
    };
  }
  const lines = [
    ...formatPolicyReport(await policyReport(backend.policy))
      .trimEnd()
      .split('\n'),
    approval,
  ];
  // All of it: the overlay scrolls (j/k) when it is longer than the screen's room.
  return { type: 'message', title: `policy ${backend.policy.name}`, lines };
}

/**
 * `:cost`: the session's tokens and estimated cost as its log records them,
 * sub-agents (and planning or execute agents started from it) included; and
 * what this UI has seen since it opened.
 */
export async function costOverlay(backend: AgentBackend, state: UiState): Promise<Overlay> {
  const lines: string[] = [];
  if (backend.sessionId) {
    try {
      const session = await loadSession(sessionFile(backend.workspace, backend.sessionId));
      const total = await sessionTotals(backend.workspace, session);
      const own = ownTotals(session);
      lines.push(
        `session ${backend.sessionId.slice(0, 13)}: ${formatUsage(total.usage)} · est. ${formatCost(total)}`,
        `  of which this agent: ${formatUsage(own.usage)} · est. ${formatCost(own)}`,
      );
    } catch (error) {
      lines.push(
        `the session log could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  const { total, costUsd } = state.usage;
  lines.push(
    `since the UI opened (sub-agents included): ${formatUsage(total)} · est. $${costUsd.toFixed(2)}`,
    `prices of ${state.model}; a model with no known price counts as $0`,
  );
  return { type: 'message', title: 'cost (any key closes)', lines };
}
