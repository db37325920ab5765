import {
  RequestError,
  type SessionConfigOption,
  type SessionConfigSelectOption,
  type SessionModeState,
} from '@agentclientprotocol/sdk';
import { isDeprecated, knownModels } from '../provider/model-catalog.js';
import type { AcpMode } from './acp-agent-port.js';

/** A session config option set by the client, as the change it asks for. */
export type ConfigChange = { kind: 'model'; model: string } | { kind: 'mode'; mode: AcpMode };

/**
 * The session's config options: the model (from Skate's model list, the
 * current one always included) and the mode, which is also offered as the
 * older `modes`: clients that take config options use them instead.
 * https://agentclientprotocol.com/protocol/session-config-options
 */
export function configOptions(model: string, modes: SessionModeState): SessionConfigOption[] {
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
  ];
}

/** Reads a `session/set_config_option` request; an unknown option or value is the client's mistake. */
export function configChange(
  request: { configId: string; value: unknown },
  model: string,
  modes: SessionModeState,
): ConfigChange {
  const option = configOptions(model, modes).find((each) => each.id === request.configId);
  if (option?.type !== 'select') {
    throw RequestError.invalidParams(
      { configId: request.configId },
      `unknown config option ${request.configId}: Skate's are mode and model`,
    );
  }
  const values = (option.options as SessionConfigSelectOption[]).map((each) => each.value);
  if (typeof request.value !== 'string' || !values.includes(request.value)) {
    throw RequestError.invalidParams(
      { configId: request.configId, value: request.value },
      `${String(request.value)} is not a value of ${request.configId}: one of ${values.join(', ')}`,
    );
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
