import * as z from 'zod';
import type { MetaTool } from '../engine/engine-types.js';
import { invalidInputResult } from '../engine/invalid-input-result.js';
import type { BackgroundAgents } from './background-agents.js';
import { inputJsonSchema } from './input-json-schema.js';

/** The longest one agent_wait may block the parent's turn. */
const MAX_WAIT_SECONDS = 600;

export const AgentWaitInput = z.object({
  ids: z
    .array(z.string().min(1))
    .max(32)
    .optional()
    .describe('The background sub-agents to wait for; all running ones when left out.'),
  timeout_seconds: z
    .number()
    .positive()
    .max(MAX_WAIT_SECONDS)
    .optional()
    .describe(`How long to wait at most, in seconds (default 60, at most ${MAX_WAIT_SECONDS}).`),
});

const DESCRIPTION = `Waits for background sub-agents (spawn_agent with background: true) to finish, up to a timeout. Returns the results of those that ended (as spawn_agent would have) and the status of those still running at the timeout. A result returned here is not sent again as a message.`;

/** `agent_wait`: blocks this turn until the given background children end or the timeout passes. */
export function createAgentWaitTool(background: BackgroundAgents): MetaTool {
  return {
    definition: {
      name: 'agent_wait',
      description: DESCRIPTION,
      effect: 'read',
      inputSchema: inputJsonSchema(AgentWaitInput),
    },
    async run(call) {
      const parsed = AgentWaitInput.safeParse(call.input ?? {});
      if (!parsed.success) {
        return invalidInputResult('agent_wait', parsed.error);
      }
      const ids = parsed.data.ids ?? [];
      const unknown = ids.filter((id) => !background.has(id));
      if (unknown.length > 0) {
        return {
          output: `no background sub-agent ${unknown.join(', ')}; yours are: ${
            background
              .status()
              .map((s) => s.id)
              .join(', ') || 'none'
          }`,
          isError: true,
          code: 'not_found',
        };
      }
      const timeoutMs = (parsed.data.timeout_seconds ?? 60) * 1000;
      const { ended, running } = await background.wait(ids, timeoutMs, call.signal);
      if (call.signal.aborted)
        return { output: 'agent_wait was cancelled.', isError: true, code: 'cancelled' };
      const results = ended.map(({ status, result }) => ({ ...status, result: parseOr(result.output) }));
      return {
        output: JSON.stringify(
          { ended: results, still_running: running, ...(running.length > 0 && { timed_out: true }) },
          null,
          2,
        ),
        isError: false,
      };
    },
  };
}

/** A child's report is JSON with a first line of prose when it failed: keep it whole either way. */
function parseOr(output: string): unknown {
  try {
    return JSON.parse(output);
  } catch {
    return output;
  }
}
