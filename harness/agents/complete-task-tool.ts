import * as z from 'zod';
import type { MetaTool } from '../engine/engine-types.js';
import { namedContract, type ResultContract, type ResultContractName } from './result-contracts.js';

/** Where a sub-agent's result stands. `rejected`: invalid twice, so the run ended without one. */
export type CompletionState =
  | { status: 'pending'; invalidAttempts: number }
  | { status: 'completed'; result: unknown }
  | { status: 'rejected'; message: string };

export interface CompleteTaskTool {
  tool: MetaTool;
  state(): CompletionState;
  /** Invalid calls so far (each sent back once for repair, or ending the run). */
  invalidAttempts(): number;
}

/** How the tool is offered: the name and description the model sees. Default: a sub-agent's complete_task. */
export interface CompleteTaskOffer {
  name: string;
  description: string;
}

const DESCRIPTION = `Ends your task and hands your result to the agent that started you. Call it exactly once, when the task is done or you cannot go on (status blocked or failed), with every required field. Your work is not delivered until you do: ending your turn without it loses the result. An invalid result is sent back with the validation error, once, for you to fix.`;

/**
 * The `complete_task` tool of one run, validating against a result contract: a
 * sub-agent's named one, or a user's `--output-schema` (offered under its own
 * name). The first invalid call gets the validation message back (the one
 * repair turn); a second ends the run as `rejected`.
 */
export function createCompleteTaskTool(
  contract: ResultContract | ResultContractName = 'generic',
  offer?: CompleteTaskOffer,
): CompleteTaskTool {
  const { label, schema, jsonSchema } = typeof contract === 'string' ? namedContract(contract) : contract;
  const name = offer?.name ?? 'complete_task';
  let state: CompletionState = { status: 'pending', invalidAttempts: 0 };
  let invalid = 0;
  const tool: MetaTool = {
    definition: {
      name,
      description: offer?.description ?? `${DESCRIPTION} Result contract: ${label}.`,
      effect: 'read',
      inputSchema: jsonSchema,
    },
    async run(call) {
      if (state.status === 'completed') {
        return { output: 'Your result was already recorded; this call changed nothing.', isError: false };
      }
      if (state.status === 'rejected') {
        return { output: 'The task already ended without a valid result.', isError: true, code: 'failed' };
      }
      const parsed = schema.safeParse(call.input);
      if (parsed.success) {
        state = { status: 'completed', result: parsed.data };
        call.endRun();
        return { output: 'Result recorded. Your task is over.', isError: false };
      }
      const message = z.prettifyError(parsed.error);
      invalid++;
      if (state.invalidAttempts >= 1) {
        state = { status: 'rejected', message };
        call.endRun();
        return {
          output: `${name} input is invalid again, so the task ends as failed:\n${message}`,
          isError: true,
          code: 'invalid_input',
        };
      }
      state = { status: 'pending', invalidAttempts: state.invalidAttempts + 1 };
      return {
        output: `${name} input is invalid:\n${message}\nCall ${name} again with a corrected result; a second invalid one ends the task as failed.`,
        isError: true,
        code: 'invalid_input',
      };
    },
  };
  return { tool, state: () => state, invalidAttempts: () => invalid };
}
