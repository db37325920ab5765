import { createInterface } from 'node:readline/promises';
import type { EngineCommand, EngineEvent } from '../../shared/engine-events.js';
import { argsSummary } from '../emitters/args-summary.js';
import type { Emitter } from '../engine/engine-types.js';

export interface ResponderOptions {
  /** Delivers an answer to the engine's inbox. */
  send(command: EngineCommand): void;
  /** Ask the person at the terminal (true on a TTY); otherwise answer by rule. */
  interactive: boolean;
  /** Recorded answers for ask_user, consumed in order. */
  answers?: string[][];
  note(line: string): void;
}

/**
 * Answers the engine's requests in a run with no frontend of its own: asks the
 * person at the terminal when there is one; otherwise refuses approvals (with
 * feedback telling the model why), stops at the loop cap, and gives ask_user
 * the recorded answers or none.
 */
export function createHeadlessResponder(next: Emitter, options: ResponderOptions): Emitter {
  // Questions to the terminal one at a time, even when calls ask concurrently.
  let queue: Promise<void> = Promise.resolve();
  const ask = (question: string): Promise<string> => {
    const answer = queue.then(async () => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    });
    queue = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer;
  };

  const respond = async (event: EngineEvent): Promise<void> => {
    switch (event.type) {
      case 'approval_request': {
        if (!options.interactive) {
          // Unreached when the run says it is unattended (the engine refuses such calls itself);
          // a rejection without words, so nothing is put in the user's mouth.
          options.send({ type: 'approval_response', requestId: event.requestId, decision: 'reject' });
          return;
        }
        const reply = (
          await ask(`allow ${event.name} ${argsSummary(event.args)}? [y/N or a reason] `)
        ).trim();
        const approved = /^y(es)?$/i.test(reply);
        options.send({
          type: 'approval_response',
          requestId: event.requestId,
          decision: approved ? 'approve' : 'reject',
          ...(!approved && reply && !/^n(o)?$/i.test(reply) && { feedback: reply }),
        });
        return;
      }
      case 'loop_cap_reached': {
        const goOn =
          options.interactive &&
          /^y(es)?$/i.test((await ask(`${event.iterations} turns used; continue? [y/N] `)).trim());
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
          answers.push((await ask(`${question.question}${choices} `)).trim());
        }
        options.send({ type: 'ask_user_response', requestId: event.requestId, answers });
        return;
      }
      default:
        return;
    }
  };

  return {
    emit(event) {
      next.emit(event);
      if (
        event.type === 'approval_request' ||
        event.type === 'loop_cap_reached' ||
        event.type === 'ask_user_request'
      ) {
        respond(event).catch((error: unknown) =>
          options.note(`could not answer ${event.type}: ${String(error)}`),
        );
      }
    },
  };
}
