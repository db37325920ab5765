import type { EngineEvent } from '../../shared/engine-events.js';

type HookDecision = Extract<EngineEvent, { type: 'hook_decision' }>;

const SAID: Record<HookDecision['outcome'], string> = {
  none: 'ran',
  allow: 'allowed it',
  deny: 'denied it',
  ask: 'asks for approval',
  block: 'blocked',
  context: 'added context',
  stop: 'stopped the agent',
  error: 'failed',
};

/** Whether a frontend shows this decision: a hook that changed nothing stays in stream-json only. */
export function isNotableHookDecision(event: HookDecision): boolean {
  return event.outcome !== 'none' || event.message !== undefined;
}

/**
 * One line for a hook's decision, the same in every frontend (the terminal UI's collapsed line,
 * `-p`'s text, ACP's notice): which hook, on what, what it decided and why.
 */
export function hookDecisionLine(event: HookDecision): string {
  const on = event.toolName ? `(${event.toolName})` : '';
  const command = event.command.length > 60 ? `${event.command.slice(0, 59)}…` : event.command;
  const reason = event.reason ? `: ${firstLine(event.reason)}` : '';
  const message = event.message ? ` — ${firstLine(event.message)}` : '';
  return `hook ${event.event}${on} ${SAID[event.outcome]}${reason}${message} [${event.source}: ${command}]`;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
