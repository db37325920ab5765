import type { EngineCommand } from '../../shared/engine-events.js';
import { networkAnswerOf } from '../network/network-asker.js';
import { applyEngineEvents } from './apply-engine-events.js';
import type { KeyInput } from './key-input.js';
import type { Effect, Pending, UiState } from './ui-state.js';

export const APPROVAL_CHOICES = [
  'approve',
  'reject',
  'reject with feedback',
  'approve all calls of this tool',
];
export const LOOP_CHOICES = ['continue', 'stop'];

type Result = { state: UiState; effects: Effect[] };

/**
 * Keys while the engine waits on a question: an approval, an ask_user, the
 * loop cap. Arrows or j/k move, a digit or Enter chooses. A decision that
 * loses work takes its own key: Esc never rejects an approval (the reducer
 * makes it leave INSERT) nor stops at the loop cap; it declines a question,
 * whose model goes on on its own judgement.
 */
export function answerPending(state: UiState, key: KeyInput): Result {
  const [current, ...rest] = state.pending;
  if (!current) return { state, effects: [] };
  const replace = (next: Pending): Result => ({ state: { ...state, pending: [next, ...rest] }, effects: [] });
  const answered = (command: EngineCommand, extra: Partial<UiState> = {}): Result => {
    const next: UiState = { ...state, ...extra, pending: rest };
    // The answer to a refused host is said in the conversation, as the session log keeps it.
    const network = current.type === 'ask_user' ? current.network : undefined;
    const decided =
      network && command.type === 'ask_user_response'
        ? applyEngineEvents(
            next,
            [
              {
                type: 'network_decision',
                agent: [],
                ...network,
                decision: networkAnswerOf(command.answers[0]),
              },
            ],
            state.now,
          )
        : next;
    return { state: decided, effects: [{ type: 'answer', command }] };
  };

  switch (current.type) {
    case 'approval': {
      const reject = (feedback?: string): Result =>
        answered({
          type: 'approval_response',
          requestId: current.requestId,
          decision: 'reject',
          ...(feedback !== undefined && feedback !== '' && { feedback }),
        });
      if (current.feedback !== undefined) {
        // Esc leaves the reason, back to the choices; Enter rejects with it.
        if (key.name === 'escape') {
          const { feedback: _left, ...choices } = current;
          return replace(choices);
        }
        if (key.name === 'return') return reject(current.feedback);
        if (key.name === 'backspace') return replace({ ...current, feedback: current.feedback.slice(0, -1) });
        if (key.name === undefined && !key.ctrl && !key.meta) {
          return replace({ ...current, feedback: current.feedback + key.text });
        }
        return { state, effects: [] };
      }
      if (key.text === 'n') return reject();
      if (key.text === 'y') return choose(0);
      const moved = moveChoice(current.choice, APPROVAL_CHOICES.length, key);
      if (moved !== undefined) return replace({ ...current, choice: moved.choice });
      const picked = pickedChoice(current.choice, APPROVAL_CHOICES.length, key);
      return picked === undefined ? { state, effects: [] } : choose(picked);

      function choose(choice: number): Result {
        if (current?.type !== 'approval') return { state, effects: [] };
        const approve: EngineCommand = {
          type: 'approval_response',
          requestId: current.requestId,
          decision: 'approve',
        };
        if (choice === 0) return answered(approve);
        if (choice === 1) return reject();
        if (choice === 2) return replace({ ...current, choice, feedback: '' });
        return answered(approve, { autoApprove: [...state.autoApprove, current.name] });
      }
    }
    case 'ask_user': {
      const question = current.questions[current.index];
      const options = question?.options ?? [];
      const next = (answer: string): Result => {
        const answers = [...current.answers, answer];
        if (answers.length < current.questions.length) {
          return replace({
            ...current,
            index: current.index + 1,
            answers,
            choice: 0,
            selected: [],
            text: '',
          });
        }
        return answered({ type: 'ask_user_response', requestId: current.requestId, answers });
      };
      if (key.name === 'escape') {
        return answered({
          type: 'ask_user_response',
          requestId: current.requestId,
          answers: current.questions.map(() => ''),
        });
      }
      if (options.length === 0) {
        if (key.name === 'return') return next(current.text);
        if (key.name === 'backspace') return replace({ ...current, text: current.text.slice(0, -1) });
        if (key.name === undefined && !key.ctrl && !key.meta)
          return replace({ ...current, text: current.text + key.text });
        return { state, effects: [] };
      }
      const moved = moveChoice(current.choice, options.length, key);
      if (moved !== undefined) return replace({ ...current, choice: moved.choice });
      if (question?.multiSelect) {
        // Several answers: Space or a digit ticks, Enter sends the ticked ones (none: the one at the cursor).
        const toggle = (i: number): Result => {
          const selected = current.selected.includes(i)
            ? current.selected.filter((each) => each !== i)
            : [...current.selected, i].sort((a, b) => a - b);
          return replace({ ...current, choice: i, selected });
        };
        if (key.text === ' ' && key.name === undefined) return toggle(current.choice);
        if (key.name === 'return') {
          const chosen = current.selected.length > 0 ? current.selected : [current.choice];
          return next(chosen.map((i) => options[i]!).join(', '));
        }
        const digit = pickedChoice(current.choice, options.length, key);
        return digit === undefined ? { state, effects: [] } : toggle(digit);
      }
      const picked = pickedChoice(current.choice, options.length, key);
      return picked === undefined ? { state, effects: [] } : next(options[picked]!);
    }
    case 'loop_cap': {
      const decide = (decision: 'continue' | 'stop'): Result =>
        answered({ type: 'loop_decision', requestId: current.requestId, decision });
      const moved = moveChoice(current.choice, LOOP_CHOICES.length, key);
      if (moved !== undefined) return replace({ ...current, choice: moved.choice });
      const picked = pickedChoice(current.choice, LOOP_CHOICES.length, key);
      return picked === undefined ? { state, effects: [] } : decide(picked === 0 ? 'continue' : 'stop');
    }
  }
}

function moveChoice(choice: number, count: number, key: KeyInput): { choice: number } | undefined {
  if (key.name === 'down' || key.text === 'j') return { choice: (choice + 1) % count };
  if (key.name === 'up' || key.text === 'k') return { choice: (choice + count - 1) % count };
  return undefined;
}

function pickedChoice(choice: number, count: number, key: KeyInput): number | undefined {
  if (key.name === 'return') return choice;
  const digit = /^[1-9]$/.test(key.text) ? Number(key.text) - 1 : -1;
  return digit >= 0 && digit < count ? digit : undefined;
}
