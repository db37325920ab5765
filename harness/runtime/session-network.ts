import type { EngineEvent } from '../../shared/engine-events.js';
import { type NetworkPolicy, type NetworkSetting, networkLabel } from '../../shared/policy.js';
import { applyRunOverrides } from '../../shared/run-overrides.js';
import type { CommandInbox } from '../engine/engine-types.js';
import { createNetworkAsker, type NetworkAskerOptions } from '../network/network-asker.js';
import type { NetworkGate } from '../network/network-gate.js';
import { AgentRuntimeError } from './agent-runtime-error.js';
import type { AgentSettings } from './agent-settings.js';
import type { SessionExecutor } from './session-executor.js';

/** What the network of an agent needs of the agent around it. */
export interface SessionNetworkHost {
  settings: AgentSettings;
  executor: SessionExecutor;
  /** The list this agent's proxy enforces (under an allowlist) and where its refusals come from. */
  gate: NetworkGate | undefined;
  /** Where network questions are answered; undefined when nobody answers (a sub-agent). */
  inbox: CommandInbox | undefined;
  emit(event: EngineEvent): void;
  /** The running run's signal, if any: an interrupt refuses a question that waits. */
  runSignal(): AbortSignal | undefined;
  /** Records a network question's answer in the session log. */
  record: NetworkAskerOptions['record'];
  /** Throws when the agent was closed. */
  assertOpen(): void;
  /** Throws when the agent was closed or a run is in progress. */
  assertIdle(): void;
}

/**
 * An agent's network: switching it (the proxy's list in place, or a new executor), the
 * refusals and questions of its proxy, and who is told of a change. Apart from `AgentSession`
 * so that what a switch changes (the proxy's list, the executor, the note to the model) is
 * decided in one place.
 */
export class SessionNetwork {
  /** Told after every change of the network in force (`set`, a network question's answer). */
  private readonly listeners = new Set<(network: NetworkPolicy) => void>();
  /** Said to the model with the next prompt (a network switch). */
  private pendingNotes: string[] = [];
  /** Shell commands running now, by call id: a refusal names the one that tried when it is alone. */
  private readonly runningCommands = new Map<string, string>();

  constructor(private readonly host: SessionNetworkHost) {
    const { settings, gate, inbox } = host;
    gate?.onDenied((denial) => {
      const running = [...this.runningCommands];
      const only = running.length === 1 ? running[0] : undefined;
      host.emit({
        type: 'network_denied',
        agent: settings.agent ?? [],
        ...denial,
        ...(only && { callId: only[0], command: only[1] }),
      });
    });
    if (settings.askNetwork && inbox && gate) {
      gate.setAsker(
        createNetworkAsker({
          inbox,
          emit: (event) => host.emit(event),
          agent: settings.agent ?? [],
          command: () => {
            const running = [...this.runningCommands.values()];
            return running.length === 1 ? running[0] : undefined;
          },
          runSignal: () => host.runSignal(),
          current: () => host.executor.policy?.network,
          setList: (list) => this.set(list).catch(() => undefined),
          record: (decision) => host.record(decision),
          ceiling: settings.askNetwork.ceiling,
        }),
      );
    }
  }

  /** Keeps the running shell commands as their calls start and end. */
  trackCommand(event: EngineEvent): void {
    if (event.type === 'tool_call_start' && event.name === 'shell') {
      const command = (event.args as { command?: unknown } | undefined)?.command;
      if (typeof command === 'string') this.runningCommands.set(event.id, command.slice(0, 500));
    } else if (event.type === 'tool_call_result') {
      this.runningCommands.delete(event.id);
    }
  }

  /** What the model is to be told with the next prompt, taken once. */
  takeNotes(): string[] {
    return this.pendingNotes.splice(0);
  }

  /** See `AgentSession.onNetworkChange`. */
  onChange(listener: (network: NetworkPolicy) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** See `AgentSession.setNetwork`. */
  async set(setting: NetworkSetting): Promise<NetworkPolicy> {
    const { host } = this;
    const local = host.settings.executor;
    const policy = host.executor.policy;
    if (local.kind !== 'local' || !policy) {
      throw new AgentRuntimeError('settings', "a remote executor's network is its server's to set");
    }
    const next = applyRunOverrides(policy, { network: setting });
    if (policy.network.mode === 'allowlist' && next.network.mode === 'allowlist' && host.gate) {
      host.assertOpen();
      host.gate.set(next.network);
      host.executor.changePolicy(next);
      this.pendingNotes.push(
        `[Skate: your tools may now reach ${next.network.allow.join(', ') || 'no host'} through the proxy${next.network.deny.length > 0 ? ` (never ${next.network.deny.join(', ')})` : ''}.]`,
      );
      this.changed(next.network);
      return next.network;
    }
    host.assertIdle();
    await host.executor.replace({ ...local, ...(host.gate && { networkGate: host.gate }) }, next);
    const actual = await this.reported();
    const label =
      actual.mode === 'allowlist' ? `limited to ${actual.allow.join(', ') || 'no host'}` : actual.mode;
    this.pendingNotes.push(
      `[Skate: the network is now ${label} for your tools (their executor was restarted under the ${next.name} policy with network ${networkLabel(actual)}). Results from before may no longer hold.]`,
    );
    this.changed(actual);
    return actual;
  }

  /** See `AgentSession.networkNow`. */
  get now(): NetworkPolicy | undefined {
    return this.host.executor.policy?.network;
  }

  /** See `AgentSession.network`. */
  async reported(): Promise<NetworkPolicy> {
    const reported = (await this.host.executor.client.health()).network;
    const current = this.host.executor.policy?.network;
    return reported.mode === 'allowlist' && current?.mode === 'allowlist' ? current : reported;
  }

  private changed(network: NetworkPolicy): void {
    for (const listener of this.listeners) listener(network);
  }
}
