import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { MetaTool } from '../engine/engine-types.js';
import { invalidInputResult } from '../engine/invalid-input-result.js';
import { inputJsonSchema } from './input-json-schema.js';

export const AskUserInput = z.object({
  questions: z
    .array(
      z.object({
        question: z.string().min(1).describe('One question, complete on its own.'),
        options: z
          .array(z.string().min(1))
          .max(8)
          .optional()
          .describe('Answers to choose from; leave out for a free-text answer.'),
        multiSelect: z.boolean().optional().describe('With options: more than one may be chosen.'),
      }),
    )
    .min(1)
    .max(4)
    .describe('One to four questions, asked together.'),
});
export type AskUserInput = z.infer<typeof AskUserInput>;

const DESCRIPTION = `Asks the user one to four questions and waits for the answers. Use it when a decision is genuinely theirs (a requirement, a trade-off, a preference) and guessing wrong would waste the work; not for things you can find out by reading the code. Offer options when the likely answers are few.`;

/** Why nobody answers, by default: a headless run given no answers. */
export const NO_ONE_ATTACHED =
  'No one can answer questions in this run (it is headless, with no terminal and no answers file).';

const GO_ON =
  'Do not ask again: proceed on your best judgement, and state the assumptions you made in your final answer.';

export interface AskUserToolOptions {
  /** Whether anyone can answer: a terminal, or recorded answers. When false the tool never waits. */
  canAsk: boolean;
  /**
   * What the model is told when no answer comes (or none can): what actually happened, e.g. the
   * recorded answers ran out. Default `NO_ONE_ATTACHED`.
   */
  unanswered?: string;
}

/**
 * `ask_user`: emits an `ask_user_request` and waits for the frontend's
 * `ask_user_response`. With nobody to answer it returns an error at once,
 * telling the model to go on without, so a headless run never hangs.
 */
export function createAskUserTool(options: AskUserToolOptions): MetaTool {
  const inputSchema = inputJsonSchema(AskUserInput);
  return {
    definition: { name: 'ask_user', description: DESCRIPTION, effect: 'read', inputSchema },
    async run(call) {
      const parsed = AskUserInput.safeParse(call.input);
      if (!parsed.success) {
        return invalidInputResult('ask_user', parsed.error);
      }
      const unanswered = `${options.unanswered ?? NO_ONE_ATTACHED} ${GO_ON}`;
      if (!options.canAsk) return { output: unanswered, isError: true, code: 'failed' };
      const { questions } = parsed.data;
      const requestId = randomUUID();
      call.emit({ type: 'ask_user_request', agent: call.agent, requestId, questions });
      // Aborting the run rejects the wait; the runner turns that into a cancelled result.
      const response = await call.inbox.waitFor('ask_user_response', requestId, call.signal);
      if (response.answers.every((answer) => answer.trim() === '')) {
        return { output: `No answer came. ${unanswered}`, isError: true, code: 'failed' };
      }
      const pairs = questions.map(
        (q, i) => `Q: ${q.question}\nA: ${response.answers[i]?.trim() || '(no answer)'}`,
      );
      return { output: `The user answered:\n\n${pairs.join('\n\n')}`, isError: false };
    },
  };
}
