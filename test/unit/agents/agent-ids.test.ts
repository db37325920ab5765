import { describe, expect, it } from 'vitest';
import { AgentIds } from '../../../harness/agents/agent-ids.js';
import { highestAgentIds } from '../../../harness/session/session-agent-ids.js';
import type { SessionEvent, SessionPayload } from '../../../shared/session-format.js';

let n = 0;
function event(payload: SessionPayload): SessionEvent {
  n++;
  return {
    id: `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`,
    parentId: null,
    timestamp: '2026-11-26T10:00:00.000Z',
    payload,
  };
}
const result = (output: string): SessionPayload => ({
  type: 'user_message',
  message: { role: 'user', content: [{ type: 'tool_result', callId: `c${n}`, output, isError: false }] },
});

describe('sub-agent ids', () => {
  it('count on from a seed, each kind apart, and never go back', () => {
    const ids = new AgentIds({ agent: 2, bg: 0 });
    expect([ids.next('agent'), ids.next('bg'), ids.next('agent')]).toEqual(['agent-3', 'bg-1', 'agent-4']);
    ids.raise({ agent: 1, bg: 5 });
    expect([ids.next('agent'), ids.next('bg')]).toEqual(['agent-5', 'bg-6']);
  });

  it('a log’s highest ids come from its links and from every agent_id in a tool result', () => {
    const seed = highestAgentIds([
      event({
        type: 'subagent_link',
        childSessionId: '0190a000-0000-7000-8000-00000000ffff',
        callId: 's1',
        task: 't',
        agentId: 'agent-4',
      }),
      // A failure before the child had a session (compact JSON), a background start, a pretty result.
      event(result('sub-agent failed (policy): no\n{"agent_id":"agent-7","failure":"policy"}')),
      event(result('{"agent_id":"bg-2","background":true}')),
      event(result('{\n  "agent_id": "agent-5",\n  "result": {}\n}')),
      // Older links carry no id; other text is no id.
      event({
        type: 'subagent_link',
        childSessionId: '0190a000-0000-7000-8000-00000000fffe',
        callId: 's2',
        task: 't',
      }),
      event({ type: 'model_change', from: 'a', to: 'b' }),
    ]);
    expect(seed).toEqual({ agent: 7, bg: 2 });
    expect(highestAgentIds([])).toEqual({ agent: 0, bg: 0 });
  });
});
