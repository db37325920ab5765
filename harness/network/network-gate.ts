import {
  type CompiledAllowlist,
  compileAllowlist,
  type NetworkDenialReason,
} from '../../shared/network-allowlist.js';
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
