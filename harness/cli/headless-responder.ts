import type { EngineCommand, EngineEvent } from '../../shared/engine-events.js';
import type { Emitter } from '../engine/engine-types.js';
import { inertValue } from '../terminal/inert-value.js';
import { approvalPreview, PLAIN, type PreviewPaint } from './approval-preview.js';
import { type AskQuestion, askAtTerminal } from './terminal-question.js';

export interface ResponderOptions {
  /** Delivers an answer to the engine's inbox. */
  send(command: EngineCommand): void;
  /** Ask the person at the terminal (true on a TTY); otherwise answer by rule. */
  interactive: boolean;
  /** Recorded answers for ask_user, consumed in order. */
  answers?: string[][];
  note(line: string): void;
  /** Ctrl-C at a question: interrupts the run, as Ctrl-C anywhere else does. */
  onInterrupt?(): void;
  /** How a question is asked; default the terminal. */
  ask?: AskQuestion;
  /** Colours for the approval preview; default none. */
  paint?: PreviewPaint;
}

type Request = Extract<EngineEvent, { type: 'approval_request' | 'loop_cap_reached' | 'ask_user_request' }>;

/**
 * Answers the engine's requests in a run with no frontend of its own: asks the
 * person at the terminal when there is one; otherwise refuses approvals, stops
 * at the loop cap, and gives ask_user the recorded answers or none. While a
 * question is on the screen every other event is held back and shown after it,
 * so output of calls running in parallel never lands in the line being typed.
 * A question is built from the request made inert (`inertValue`): the command,
 * the edit, the question and its options are shown as text, never obeyed.
 */
export function createHeadlessResponder(next: Emitter, options: ResponderOptions): Emitter {
  const askQuestion = options.ask ?? askAtTerminal;
  const paint = options.paint ?? PLAIN;
  let held: EngineEvent[] | undefined;
  // Questions to the terminal one at a time, even when calls ask concurrently.
  let queue: Promise<void> = Promise.resolve();
  let interrupted = false;

  const release = (): void => {
    const events = held ?? [];
    held = undefined;
    for (const event of events) next.emit(event);
  };
  const ask = (question: string): Promise<string | undefined> => {
    const answer = queue.then(async () => {
      if (interrupted) return undefined;
      held ??= [];
      try {
        const reply = await askQuestion(question);
        if (reply === undefined && !interrupted) {
          interrupted = true;
          options.onInterrupt?.();
        }
        return reply;
      } finally {
        release();
      }
    });
    queue = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer;
  };

  const respond = async (event: Request): Promise<void> => {
    switch (event.type) {
      case 'approval_request': {
        if (!options.interactive) {
          // Unreached when the run says it is unattended (the engine refuses such calls itself);
          // a rejection without words, so nothing is put in the user's mouth.
          options.send({ type: 'approval_response', requestId: event.requestId, decision: 'reject' });
          return;
        }
        const preview = approvalPreview(event.name, event.args, paint).map((line) => `  ${line}\n`);
        const reply = await ask(`allow ${event.name}?\n${preview.join('')}[y/N or a reason] `);
        // Ctrl-C: the run is being interrupted, and the engine stops waiting by itself.
        if (reply === undefined) return;
        const trimmed = reply.trim();
        const approved = /^y(es)?$/i.test(trimmed);
        options.send({
          type: 'approval_response',
          requestId: event.requestId,
          decision: approved ? 'approve' : 'reject',
          ...(!approved && trimmed && !/^n(o)?$/i.test(trimmed) && { feedback: trimmed }),
        });
        return;
      }
      case 'loop_cap_reached': {
        const reply = options.interactive
          ? await ask(`${event.iterations} turns used; continue? [y/N] `)
          : '';
        if (reply === undefined) return;
        const goOn = /^y(es)?$/i.test(reply.trim());
        if (!goOn) options.note(`stopped at the turn limit (${event.iterations}); raise it with --max-turns`);
        options.send({
          type: 'loop_decision',
          requestId: event.requestId,
          decision: goOn ? 'continue' : 'stop',
        });
        return;
      }
      case 'ask_user_request': {
        const recorded = options.answers?.shift();
        if (recorded) {
          options.send({ type: 'ask_user_response', requestId: event.requestId, answers: recorded });
          return;
        }
        if (!options.interactive) {
          // Recorded answers ran out: an empty answer tells ask_user nobody can answer, rather than leave it waiting.
          options.note('no recorded answer left for ask_user; the model is told to go on without one');
          options.send({ type: 'ask_user_response', requestId: event.requestId, answers: [] });
          return;
        }
        const answers: string[] = [];
        for (const question of event.questions) {
          const choices = question.options?.length ? ` (${question.options.join(' / ')})` : '';
          const reply = await ask(`${question.question}${choices} `);
          if (reply === undefined) return;
          answers.push(reply.trim());
        }
        options.send({ type: 'ask_user_response', requestId: event.requestId, answers });
        return;
      }
    }
  };

  return {
    emit(event) {
      if (held) {
        held.push(event);
      } else {
        next.emit(event);
      }
      if (
        event.type === 'approval_request' ||
        event.type === 'loop_cap_reached' ||
        event.type === 'ask_user_request'
      ) {
        respond(inertValue(event)).catch((error: unknown) =>
          options.note(`could not answer ${event.type}: ${String(error)}`),
        );
      }
    },
  };
}
