import type { PermissionOption, RequestPermissionOutcome } from '@agentclientprotocol/sdk';

/** What the user chose for one approval, and whether to choose the same for the tool from now on. */
export interface ApprovalChoice {
  decision: 'approve' | 'reject';
  /** Set for "always": the session answers this tool's later calls the same way without asking. */
  remember: boolean;
  /** Told to the model with a rejection. */
  feedback?: string;
}

/** The four answers ACP defines for a permission request, named for the tool. */
export function approvalOptions(toolName: string): PermissionOption[] {
  return [
    { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
    { optionId: 'allow_always', name: `Always allow ${toolName}`, kind: 'allow_always' },
    { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
    { optionId: 'reject_always', name: `Always reject ${toolName}`, kind: 'reject_always' },
  ];
}

/**
 * The engine's approval answer for the client's outcome. A cancelled request
 * (the prompt was cancelled) or an option Skate did not offer is a rejection.
 */
export function approvalChoice(outcome: RequestPermissionOutcome): ApprovalChoice {
  if (outcome.outcome === 'cancelled') {
    return { decision: 'reject', remember: false, feedback: 'The user cancelled the request.' };
  }
  switch (outcome.optionId) {
    case 'allow_once':
      return { decision: 'approve', remember: false };
    case 'allow_always':
      return { decision: 'approve', remember: true };
    case 'reject_always':
      return { decision: 'reject', remember: true };
    default:
      return { decision: 'reject', remember: false };
  }
}

const SKIP = 'skip';

/** An ask_user question with options, as a permission request's options (plus a way not to answer). */
export function questionOptions(options: readonly string[]): PermissionOption[] {
  return [
    ...options.map((name, i): PermissionOption => ({ optionId: `option-${i}`, name, kind: 'allow_once' })),
    { optionId: SKIP, name: 'Skip this question', kind: 'reject_once' },
  ];
}

/** The answer a question-as-permission outcome gives: the chosen option's text, or '' when skipped. */
export function questionAnswer(options: readonly string[], outcome: RequestPermissionOutcome): string {
  if (outcome.outcome === 'cancelled') return '';
  const index = /^option-(\d+)$/.exec(outcome.optionId)?.[1];
  return index === undefined ? '' : (options[Number(index)] ?? '');
}
