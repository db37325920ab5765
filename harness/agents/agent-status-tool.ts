import * as z from 'zod';
import type { MetaTool } from '../engine/engine-types.js';
import { invalidInputResult } from '../engine/invalid-input-result.js';
import type { BackgroundAgents } from './background-agents.js';
import { inputJsonSchema } from './input-json-schema.js';

export const AgentStatusInput = z.object({
  id: z
    .string()
    .min(1)
    .optional()
    .describe('One background sub-agent (the id spawn_agent returned); all of them when left out.'),
});

const DESCRIPTION = `Reports your background sub-agents (spawn_agent with background: true) without waiting: each one's state (running, completed, failed), current tool, turns, tokens, elapsed time and failure. A finished one's result comes to you as a message, or from agent_wait.`;

/** `agent_status`: the state of one background child, or of all of them. Never waits. */
export function createAgentStatusTool(background: BackgroundAgents): MetaTool {
  return {
    definition: {
      name: 'agent_status',
      description: DESCRIPTION,
      effect: 'read',
      inputSchema: inputJsonSchema(AgentStatusInput),
    },
    async run(call) {
      const parsed = AgentStatusInput.safeParse(call.input ?? {});
      if (!parsed.success) {
        return invalidInputResult('agent_status', parsed.error);
      }
      const { id } = parsed.data;
      if (id !== undefined && !background.has(id)) {
        return {
          output: `no background sub-agent ${id}; yours are: ${
            background
              .status()
              .map((s) => s.id)
              .join(', ') || 'none'
          }`,
          isError: true,
          code: 'not_found',
        };
      }
      return {
        output: JSON.stringify({ agents: background.status(id === undefined ? [] : [id]) }, null, 2),
        isError: false,
      };
    },
  };
}
