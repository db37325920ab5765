import type { AssistantLine, MessageLine, UserLine } from '../../shared/claude-stream-lines.js';
import type { EngineEvent } from '../../shared/engine-events.js';

interface AgentMessages {
  parentCallId: string | null;
  reply: AssistantLine['message']['content'];
  results: UserLine['message']['content'];
}

export interface MessageLines {
  /** The whole-message lines `event` completes (none, one, or a reply and its results). */
  after(event: EngineEvent): MessageLine[];
}

/**
 * Builds Claude Code's whole `assistant` and `user` messages from the engine's events, per agent:
 * a reply's finished blocks (text_done, thinking_done, tool_call_start) make one `assistant`
 * line when its `usage` comes (or when its turn ends cut short), and a turn's tool results one
 * `user` line when the turn ends. Built from events, so a frontend needs nothing more of the engine.
 */
export function createMessageLines(model: () => string, sessionId: () => string | undefined): MessageLines {
  const agents = new Map<string, AgentMessages>();
  const of = (event: EngineEvent): AgentMessages => {
    const key = event.agent.join('\u0000');
    let state = agents.get(key);
    if (!state) {
      state = { parentCallId: null, reply: [], results: [] };
      agents.set(key, state);
    }
    return state;
  };
  const base = (event: EngineEvent, state: AgentMessages) => {
    const session = sessionId();
    return {
      parent_tool_use_id: state.parentCallId,
      ...(session && { session_id: session }),
      agent: event.agent,
    };
  };
  const reply = (
    event: EngineEvent,
    state: AgentMessages,
    usage?: AssistantLine['message']['usage'],
  ): MessageLine[] => {
    if (state.reply.length === 0) return [];
    const content = state.reply;
    state.reply = [];
    return [
      {
        type: 'assistant',
        message: {
          type: 'message',
          role: 'assistant',
          model: model(),
          content,
          ...(usage && { usage }),
        },
        ...base(event, state),
      },
    ];
  };
  return {
    after(event) {
      const state = of(event);
      switch (event.type) {
        case 'turn_start':
          if (event.parentCallId) state.parentCallId = event.parentCallId;
          return [];
        case 'text_done':
          state.reply.push({ type: 'text', text: event.text });
          return [];
        case 'thinking_done':
          state.reply.push({ type: 'thinking', thinking: event.text });
          return [];
        case 'tool_call_start':
          if (event.parentCallId && state.parentCallId === null) state.parentCallId = event.parentCallId;
          state.reply.push({ type: 'tool_use', id: event.id, name: event.name, input: event.args });
          return [];
        case 'usage':
          return reply(event, state, {
            input_tokens: event.turn.inputTokens,
            output_tokens: event.turn.outputTokens,
            cache_creation_input_tokens: event.turn.cacheWriteTokens,
            cache_read_input_tokens: event.turn.cacheReadTokens,
          });
        case 'tool_call_result':
          // A result while the reply is still open is a retried reply's discarded call: the reply starts over.
          if (state.reply.length > 0) {
            state.reply = [];
            return [];
          }
          state.results.push({
            type: 'tool_result',
            tool_use_id: event.id,
            content: event.output,
            is_error: event.isError,
          });
          return [];
        case 'turn_end': {
          const lines = reply(event, state);
          if (state.results.length > 0) {
            lines.push({
              type: 'user',
              message: { role: 'user', content: state.results },
              ...base(event, state),
            });
            state.results = [];
          }
          return lines;
        }
        default:
          return [];
      }
    },
  };
}
