import {
  RequestError,
  type SessionConfigOption,
  type SessionConfigSelectOption,
  type SessionModeState,
} from '@agentclientprotocol/sdk';
import { type NetworkPolicy, type NetworkSetting, networkLabel } from '../../shared/policy.js';
import { isDeprecated, knownModels } from '../provider/model-catalog.js';
import type { AcpMode } from './acp-agent-port.js';

/** A session config option set by the client, as the change it asks for. */
export type ConfigChange =
  | { kind: 'model'; model: string }
  | { kind: 'mode'; mode: AcpMode }
  | { kind: 'network'; network: NetworkSetting };

/** The session's network now, and the last allowlist it ran under (what `allowlist` goes back to). */
export interface NetworkChoice {
  current: NetworkPolicy;
  allowlist: Extract<NetworkPolicy, { mode: 'allowlist' }> | undefined;
}

/**
 * The session's config options: the model (from Skate's model list, the
 * current one always included) and the mode, which is also offered as the
 * older `modes`: clients that take config options use them instead.
 * https://agentclientprotocol.com/protocol/session-config-options
 */
export function configOptions(
  model: string,
  modes: SessionModeState,
  network?: NetworkChoice,
): SessionConfigOption[] {
  return [
    {
      id: 'mode',
      name: 'Mode',
      description: 'Plan read-only first, or carry out the work.',
      category: 'mode',
      type: 'select',
      currentValue: modes.currentModeId,
      options: modes.availableModes.map((mode) => ({
        value: mode.id,
        name: mode.name,
        ...(mode.description && { description: mode.description }),
      })),
    },
    {
      id: 'model',
      name: 'Model',
      description: 'The model of the next turns.',
      category: 'model',
      type: 'select',
      currentValue: model,
      options: modelOptions(model),
    },
    ...(network ? [networkOption(network)] : []),
  ];
}

/**
 * The network of the session's tools (issue #21), as `Space n` and serve's `set_network` set it:
 * off, the allowlist the session ran under (offered once there is one), or on. Between two
 * allowlists the proxy's list changes at once; otherwise the executor is restarted.
 */
function networkOption({ current, allowlist }: NetworkChoice): SessionConfigOption {
  const list = current.mode === 'allowlist' ? current : allowlist;
  return {
    id: 'network',
    name: 'Network',
    description:
      "What the agent's tools may reach: nothing, the hosts of the allowlist (through Skate's proxy), or everything.",
    category: '_network',
    type: 'select',
    currentValue: current.mode,
    options: [
      { value: 'off', name: 'Off', description: 'No network for tools.' },
      ...(list
        ? [
            {
              value: 'allowlist',
              name: `Allowlist (${networkLabel(list)})`,
              description: `Only ${list.allow.join(', ') || 'no host'}${list.deny.length > 0 ? `, never ${list.deny.join(', ')}` : ''}, through Skate's proxy.`,
            },
          ]
        : []),
      { value: 'on', name: 'On', description: 'Any host.' },
    ],
  };
}

/** Reads a `session/set_config_option` request; an unknown option or value is the client's mistake. */
export function configChange(
  request: { configId: string; value: unknown },
  model: string,
  modes: SessionModeState,
  network?: NetworkChoice,
): ConfigChange {
  const option = configOptions(model, modes, network).find((each) => each.id === request.configId);
  if (option?.type !== 'select') {
    throw RequestError.invalidParams(
      { configId: request.configId },
      `unknown config option ${request.configId}: Skate's are mode, model and network`,
    );
  }
  const values = (option.options as SessionConfigSelectOption[]).map((each) => each.value);
  if (typeof request.value !== 'string' || !values.includes(request.value)) {
    throw RequestError.invalidParams(
      { configId: request.configId, value: request.value },
      `${String(request.value)} is not a value of ${request.configId}: one of ${values.join(', ')}`,
    );
  }
  if (option.id === 'network') {
    const list = network?.current.mode === 'allowlist' ? network.current : network?.allowlist;
    return {
      kind: 'network',
      network:
        request.value === 'allowlist' && list
          ? { allow: list.allow, deny: list.deny }
          : (request.value as 'off' | 'on'),
    };
  }
  return option.id === 'model'
    ? { kind: 'model', model: request.value }
    : { kind: 'mode', mode: request.value as AcpMode };
}

/** The model list without deprecated models and dated snapshots, newest first; the current model first when it is not listed. */
function modelOptions(current: string): SessionConfigSelectOption[] {
  const listed = knownModels().filter((id) => !isDeprecated(id) && !/-\d{8}$/.test(id));
  const ids = listed.includes(current) ? listed : [current, ...listed];
  return ids.map((id) => ({ value: id, name: id }));
}
