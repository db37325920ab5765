import { networkFromSetting, networkLabel } from '../../shared/policy.js';
import type { RuntimeCommand } from '../../shared/runtime-command.js';

/** A runtime command as the status line names it ("model …", "switching to PLAN"). */
export function describeRuntimeCommand(command: RuntimeCommand): string {
  switch (command.type) {
    case 'set_model':
      return `model ${command.model}`;
    case 'set_network':
      return `network ${networkLabel(networkFromSetting(command.network))}`;
    case 'set_approval':
      return `approval ${command.approval}`;
    case 'set_activity':
      return command.activity === 'plan' ? 'switching to PLAN' : 'switching to EXECUTE';
    default:
      return command.type;
  }
}
