import { describeNetworkDenial } from '../../shared/network-allowlist.js';
import type { SessionPayload } from '../../shared/session-format.js';
import { hookDecisionLine } from '../hooks/hook-decision-line.js';

/** An event a session log keeps as a notice: a network refusal, a hook's notable decision. */
export type NoticeEvent = Extract<SessionPayload, { type: 'notice' }>['event'];

/** A notice in words, as the conversation shows it live (and a transcript prints it). */
export function noticeLine(event: NoticeEvent): string {
  return event.type === 'network_denied' ? describeNetworkDenial(event) : hookDecisionLine(event);
}
