import type { StopReason } from '@agentclientprotocol/sdk';
import type { StopReason as ModelStopReason } from '../../shared/conversation.js';

/** How a prompt's run ended, as the ACP agent needs it. */
export interface PromptOutcome {
  status: 'complete' | 'cancelled' | 'error' | 'loop_cap' | 'repetition';
  /** Why the model's last reply stopped, when there was one. */
  modelStopReason?: ModelStopReason | undefined;
  error?: string | undefined;
}

/**
 * The ACP stop reason of a finished run; undefined for a failed one, which the
 * agent reports as a JSON-RPC error instead (ACP has no "error" stop reason).
 */
export function stopReasonFor(outcome: PromptOutcome): StopReason | undefined {
  switch (outcome.status) {
    case 'cancelled':
      return 'cancelled';
    case 'loop_cap':
      return 'max_turn_requests';
    case 'error':
    case 'repetition':
      return undefined;
    case 'complete':
      if (outcome.modelStopReason === 'refusal') return 'refusal';
      if (outcome.modelStopReason === 'max_tokens') return 'max_tokens';
      return 'end_turn';
  }
}
