import {
  type CompiledAllowlist,
  compileAllowlist,
  type NetworkDenialReason,
} from '../../shared/network-allowlist.js';
import {
  formatHostPattern,
  type HostPattern,
  normalizeHost,
  WEB_PORTS,
} from '../../shared/network-pattern.js';
import type { NetworkAllowlist } from '../../shared/policy.js';

/** One connection the proxy refused. */
export interface NetworkDenial {
  host: string;
  port: number;
  reason: NetworkDenialReason;
  /** ISO time of the refusal. */
  at: string;
}

/** Most denials kept for listeners that subscribe late (the start of an agent), and no more. */
const DENIAL_BURST = 20;

/** What the user said about a refused host: this connection, the rest of the session, never, or nothing. */
export type NetworkAnswer = 'once' | 'session' | 'never' | 'refused';

/**
 * Asks the user about a host the list does not name (the runtime's, with someone there to
 * answer); resolves to the answer. `grant` is the pattern that `once` and `session` admit.
 */
export type NetworkAsker = (question: {
  host: string;
  port: number;
  grant: string;
}) => Promise<NetworkAnswer>;

/** Questions open at once, at most: past that a sandbox cannot queue more, it is refused. */
const MAX_OPEN_QUESTIONS = 4;

/**
 * The pattern a yes admits for `host:port`: the host alone on a web port (80 and 443, TLS and
 * the SNI check kept, never a loopback answer), else that host and port only.
 */
export function grantFor(host: string, port: number): HostPattern | undefined {
  const normal = normalizeHost(host);
  if (!normal) return undefined;
  const kind = normal.ip ? 'ip' : 'exact';
  return WEB_PORTS.includes(port) ? { kind, host: normal.host } : { kind, host: normal.host, port };
}

/**
 * The allowlist an executor's proxy enforces, changeable while it runs (a new list applies to the
 * next request at once, no restart), and where its refusals are told. One per agent: its
 * executor's proxy reads it, its runtime changes it and listens.
 */
export class NetworkGate {
  private compiled: CompiledAllowlist;
  private list: NetworkAllowlist;
  private readonly listeners = new Set<(denial: NetworkDenial) => void>();
  private readonly early: NetworkDenial[] = [];
  private asker: NetworkAsker | undefined;
  /** Questions asked and not yet answered, by `host:port`: a second connection waits for the same answer. */
  private readonly open = new Map<string, Promise<NetworkAnswer>>();

  constructor(list: NetworkAllowlist = { allow: [], deny: [] }) {
    this.list = list;
    this.compiled = compileAllowlist(list);
  }

  /** The patterns in force, parsed. */
  rules(): CompiledAllowlist {
    return this.compiled;
  }

  get allowlist(): NetworkAllowlist {
    return this.list;
  }

  /** Replaces the list; connections already open stay open (they were allowed when made). */
  set(list: NetworkAllowlist): void {
    this.compiled = compileAllowlist(list);
    this.list = { allow: [...list.allow], deny: [...list.deny] };
  }

  /** Who answers questions about refused hosts; undefined (headless, sub-agents): nobody is asked. */
  setAsker(asker: NetworkAsker | undefined): void {
    this.asker = asker;
  }

  /**
   * For a host no pattern allows: asks whoever answers (once per host and port at a time) and
   * resolves to the pattern to admit this connection with, or undefined to refuse it. A
   * `session` answer is the asker's to add to the list; `once` admits only this connection.
   */
  async consult(host: string, port: number): Promise<HostPattern | undefined> {
    const asker = this.asker;
    const grant = grantFor(host, port);
    if (!asker || !grant) return undefined;
    const key = `${grant.host}:${port}`;
    let answer = this.open.get(key);
    if (!answer) {
      if (this.open.size >= MAX_OPEN_QUESTIONS) return undefined;
      answer = asker({ host: grant.host, port, grant: formatHostPattern(grant) }).catch(
        (): NetworkAnswer => 'refused',
      );
      this.open.set(key, answer);
      void answer.finally(() => this.open.delete(key));
    }
    const said = await answer;
    return said === 'once' || said === 'session' ? grant : undefined;
  }

  /** Called by the proxy for each refusal. */
  denied(denial: NetworkDenial): void {
    if (this.listeners.size === 0) {
      if (this.early.length < DENIAL_BURST) this.early.push(denial);
      return;
    }
    for (const listener of this.listeners) listener(denial);
  }

  /** Receives each refusal (and those made before anyone listened); returns the unsubscribe. */
  onDenied(listener: (denial: NetworkDenial) => void): () => void {
    this.listeners.add(listener);
    for (const denial of this.early.splice(0)) listener(denial);
    return () => this.listeners.delete(listener);
  }
}
