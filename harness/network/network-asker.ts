import { randomUUID } from 'node:crypto';
import type { EngineEvent } from '../../shared/engine-events.js';
import { networkNarrowerOrEqual } from '../../shared/network-allowlist.js';
import type { NetworkAllowlist, NetworkPolicy } from '../../shared/policy.js';
import type { CommandInbox } from '../engine/engine-types.js';
import type { NetworkAnswer, NetworkAsker } from './network-gate.js';

/** The answers offered, in order; what each means is `NetworkAnswer`'s. */
export const NETWORK_ANSWERS = {
  once: 'Allow once',
  session: 'Allow for this session',
  never: 'Never (this session)',
} as const;

/** How long a connection waits for an answer before it is refused. */
export const NETWORK_QUESTION_MS = 5 * 60_000;

export interface NetworkAskerOptions {
  inbox: CommandInbox;
  emit(event: EngineEvent): void;
  agent: string[];
  /** The shell command running now, when exactly one is (named in the question). */
  command(): string | undefined;
  /** The running turn's signal, if any: an interrupt refuses what waits. */
  runSignal(): AbortSignal | undefined;
  /** The list in force now. */
  current(): NetworkPolicy | undefined;
  /** Makes `list` the agent's list (the runtime's `setNetwork`: the proxy's list changes at once). */
  setList(list: NetworkAllowlist): Promise<unknown>;
  /** Records the answer in the session log. */
  record(decision: { host: string; port: number; decision: NetworkAnswer }): void;
  /** The widest network an answer may open (serve's policy); a grant past it is not asked. */
  ceiling?: NetworkPolicy | undefined;
  waitMs?: number;
}

/**
 * The runtime's side of "asking is cheap" (issue #21): a host the allowlist does not name
 * becomes an `ask_user_request` marked `network`, answered like any question by the terminal
 * UI, an ACP client or a serve client. `session` adds the host to the agent's list and `never`
 * to its deny list, both at once and for this agent only; every answer is logged.
 */
export function createNetworkAsker(options: NetworkAskerOptions): NetworkAsker {
  return async ({ host, port, grant }) => {
    const current = options.current();
    if (current?.mode !== 'allowlist') return 'refused';
    const widened = { ...current, allow: [...current.allow, grant] };
    if (options.ceiling && !networkNarrowerOrEqual(widened, options.ceiling)) return 'refused';
    const requestId = randomUUID();
    const command = options.command();
    const who = command ? `The command \`${command.split('\n')[0]!.slice(0, 120)}\`` : 'A tool';
    options.emit({
      type: 'ask_user_request',
      agent: options.agent,
      requestId,
      questions: [
        {
          question: `${who} tried to reach ${host}:${port}, which the network allowlist does not name. Let it through?`,
          options: [NETWORK_ANSWERS.once, NETWORK_ANSWERS.session, NETWORK_ANSWERS.never],
        },
      ],
      network: { host, port },
    });
    const run = options.runSignal();
    const waited = AbortSignal.timeout(options.waitMs ?? NETWORK_QUESTION_MS);
    const signal = run ? AbortSignal.any([run, waited]) : waited;
    let decision: NetworkAnswer = 'refused';
    try {
      const response = await options.inbox.waitFor('ask_user_response', requestId, signal);
      decision = networkAnswerOf(response.answers[0]);
    } catch {
      decision = 'refused';
    }
    const now = options.current();
    if (now?.mode === 'allowlist' && decision === 'session' && !now.allow.includes(grant)) {
      await options.setList({ allow: [...now.allow, grant], deny: now.deny });
    } else if (now?.mode === 'allowlist' && decision === 'never' && !now.deny.includes(grant)) {
      await options.setList({ allow: now.allow, deny: [...now.deny, grant] });
    }
    options.record({ host, port, decision });
    return decision;
  };
}

/** The decision an answer to a network question stands for (anything else refuses). */
export function networkAnswerOf(answer: string | undefined): NetworkAnswer {
  const text = answer?.trim();
  if (text === NETWORK_ANSWERS.once) return 'once';
  if (text === NETWORK_ANSWERS.session) return 'session';
  if (text === NETWORK_ANSWERS.never) return 'never';
  return 'refused';
}
