import { type NetworkPolicy, type NetworkSetting, networkLabel } from '../../shared/policy.js';
import type { AgentBackend } from './agent-backend.js';

/** The network badge's text, and where `Space n` goes next: it remembers the last allowlist seen. */
export class NetworkToggle {
  /** The last allowlist the agent ran under: where `Space n` goes from off. */
  private allowlist: Extract<NetworkPolicy, { mode: 'allowlist' }> | undefined;

  /** The badge's text for `backend`'s network; remembers an allowlist for `Space n` to come back to. */
  async badge(backend: AgentBackend): Promise<string> {
    try {
      const network = await backend.network();
      if (network.mode === 'allowlist') this.allowlist = network;
      return networkLabel(network);
    } catch {
      return 'unknown';
    }
  }

  /** The setting after `current`: off → the run's allowlist (when it has one) → on → off. */
  next(current: NetworkPolicy['mode']): NetworkSetting {
    const { allowlist } = this;
    return current === 'off' && allowlist
      ? { allow: allowlist.allow, deny: allowlist.deny }
      : current === 'on'
        ? 'off'
        : 'on';
  }
}
