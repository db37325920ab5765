import type { SessionEvent } from '../../shared/session-format.js';

/** The highest number of each kind of sub-agent id (`agent-N`, `bg-N`) a session has used. */
export interface AgentIdSeed {
  agent: number;
  bg: number;
}

// `"agent_id":"agent-3"` in a spawn_agent result (compact or indented JSON), as a tool result's text.
const RESULT_ID = /"agent_id":\s*"(agent|bg)-(\d+)"/g;

/**
 * The highest sub-agent ids a session's events name: each link to a child's session (`agentId`),
 * and each `agent_id` in a tool result (a child that failed before it had a session, a background
 * start, logs from before links carried the id). A number the model merely wrote in a result is
 * counted too: an id skipped is harmless, one reused is not.
 */
export function highestAgentIds(events: readonly SessionEvent[]): AgentIdSeed {
  const seed: AgentIdSeed = { agent: 0, bg: 0 };
  const see = (kind: string, number: string): void => {
    const key = kind as keyof AgentIdSeed;
    seed[key] = Math.max(seed[key], Number(number));
  };
  for (const { payload } of events) {
    if (payload.type === 'subagent_link' && payload.agentId) {
      const match = /^(agent|bg)-(\d+)$/.exec(payload.agentId);
      if (match) see(match[1] as string, match[2] as string);
    }
    if (payload.type !== 'user_message') continue;
    for (const block of payload.message.content) {
      if (block.type !== 'tool_result') continue;
      for (const match of block.output.matchAll(RESULT_ID)) see(match[1] as string, match[2] as string);
    }
  }
  return seed;
}
