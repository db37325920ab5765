import type {
  SessionUpdate,
  ToolCallContent,
  ToolCallStatus,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { DispatchRecord } from '../../shared/dispatch-telemetry.js';
import type { AgentPath, EngineEvent } from '../../shared/engine-events.js';
import { describeNetworkDenial } from '../../shared/network-allowlist.js';
import { hookDecisionLine, isNotableHookDecision } from '../hooks/hook-decision-line.js';
import {
  contentForCall,
  contentForOutput,
  contentForResult,
  OUTPUT_PREVIEW_CHARS,
  toolKind,
  toolLocations,
  toolTitle,
} from './tool-call-view.js';

export interface UpdateMapperOptions {
  /** The session's workspace: tool paths are shown absolute. */
  workspace: string;
  /** Whether a call of this tool waits for the user's approval before it runs. */
  asksApproval(name: string): boolean;
  /** The client takes `notice` updates (it said so at initialize); otherwise warnings go out as thoughts. */
  notices: boolean;
  /**
   * A running command's output is sent at most this often (the result always
   * carries all of it). Default 100 ms.
   */
  outputIntervalMs?: number;
  /** Milliseconds, for that interval; default `performance.now`. */
  clock?(): number;
}

/** Turns one agent's engine events into ACP `session/update`s; it keeps only what tool calls need. */
export interface UpdateMapper {
  map(event: EngineEvent): SessionUpdate[];
  /** A call the user approved starts running. */
  running(callId: string, agent: AgentPath): SessionUpdate[];
  /** A call as ACP shows it, for a permission request. */
  toolCall(callId: string, agent: AgentPath): ToolCallUpdate;
  /** The open ask_user call of an agent: `ask_user_request` does not name its call. */
  openAskUser(agent: AgentPath): string | undefined;
  /** Calls still open when a prompt ends (a reply interrupted mid-stream): each marked failed. */
  closeOpen(): SessionUpdate[];
}

interface OpenCall {
  toolCallId: string;
  name: string;
  title: string;
  kind: ToolKind;
  agent: AgentPath;
  status: ToolCallStatus;
  /** The end of a streaming tool's output (shell), at most OUTPUT_PREVIEW_CHARS, shown as it comes. */
  tail: string;
  /** Whether the output was cut at the front. */
  cut: boolean;
  /** When output was last sent; undefined before the first. */
  shownAt: number | undefined;
  /** Its latest progress line while it runs, shown after its output. */
  progress?: string;
  /** A spawn_agent call's dispatch record (its `dispatch_end` comes just before its result). */
  dispatch?: DispatchRecord;
}

/**
 * The ACP view of the engine's events, one agent's worth (sub-agents included):
 * text and thinking deltas become message and thought chunks; a tool call goes
 * pending when the model names it, in progress once the reply is complete and
 * it runs (after its approval, if it needs one), then completed or failed with
 * its diff or output. Sub-agents' tool calls are shown with their agent's name;
 * their text is not (it reaches the parent as the spawn_agent result).
 */
export function createUpdateMapper(options: UpdateMapperOptions): UpdateMapper {
  const open = new Map<string, OpenCall>();
  const outputIntervalMs = options.outputIntervalMs ?? 100;
  const clock = options.clock ?? (() => performance.now());

  const idFor = (id: string, agent: AgentPath): string =>
    agent.length === 0 ? id : `${agent.join('/')}/${id}`;

  const update = (call: OpenCall, fields: Omit<ToolCallUpdate, 'toolCallId'>): SessionUpdate => ({
    sessionUpdate: 'tool_call_update',
    toolCallId: call.toolCallId,
    ...fields,
  });

  const start = (call: OpenCall): SessionUpdate => {
    call.status = 'in_progress';
    return update(call, { status: 'in_progress' });
  };

  const warning = (message: string): SessionUpdate =>
    options.notices
      ? { sessionUpdate: 'notice', severity: 'warning', title: message }
      : {
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: `\n\nWarning: ${message}\n\n` },
        };

  const map = (event: EngineEvent): SessionUpdate[] => {
    const main = event.agent.length === 0;
    switch (event.type) {
      case 'text_delta':
        return main
          ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } }]
          : [];
      case 'thinking_delta':
        return main
          ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } }]
          : [];
      case 'tool_call_start': {
        const title = toolTitle(event.name, event.args);
        const call: OpenCall = {
          toolCallId: idFor(event.id, event.agent),
          name: event.name,
          title: main ? title : `${event.agent.at(-1)}: ${title}`,
          kind: toolKind(event.name),
          agent: event.agent,
          status: 'pending',
          tail: '',
          cut: false,
          shownAt: undefined,
        };
        open.set(call.toolCallId, call);
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: call.toolCallId,
            title: call.title,
            name: event.name,
            kind: call.kind,
            status: 'pending',
            locations: toolLocations(event.name, event.args, options.workspace),
            content: contentForCall(event.name, event.args, options.workspace),
            rawInput: event.args,
          },
        ];
      }
      case 'usage': {
        // The reply is complete: its calls run now, except those waiting for an approval.
        const updates: SessionUpdate[] = [];
        for (const call of open.values()) {
          if (call.status !== 'pending' || !sameAgent(call.agent, event.agent)) continue;
          if (!options.asksApproval(call.name)) updates.push(start(call));
        }
        return updates;
      }
      case 'tool_output_line': {
        const call = open.get(idFor(event.id, event.agent));
        if (!call) return [];
        if (event.stream === 'progress') {
          // The latest progress (an MCP server's `3/5 message`) replaces the one before; the
          // harness sends at most ten a second, so each is shown.
          call.progress = event.text;
          call.status = 'in_progress';
          call.shownAt = clock();
          return [update(call, { status: 'in_progress', content: runningContent(call) })];
        }
        call.tail = call.tail === '' ? event.text : `${call.tail}\n${event.text}`;
        if (call.tail.length > OUTPUT_PREVIEW_CHARS) {
          call.tail = call.tail.slice(-OUTPUT_PREVIEW_CHARS);
          call.cut = true;
        }
        call.status = 'in_progress';
        // Each update carries the whole tail: a chatty command would otherwise send megabytes a second.
        const now = clock();
        if (call.shownAt !== undefined && now - call.shownAt < outputIntervalMs) return [];
        call.shownAt = now;
        return [update(call, { status: 'in_progress', content: runningContent(call) })];
      }
      case 'tool_call_result': {
        const call = open.get(idFor(event.id, event.agent));
        if (!call) return [];
        open.delete(call.toolCallId);
        return [
          update(call, {
            status: event.isError ? 'failed' : 'completed',
            content: contentForResult(event, options.workspace),
            rawOutput: {
              isError: event.isError,
              ...(event.code && { code: event.code }),
              // A sub-agent's figures and typed failure (the taxonomy every surface shares).
              ...(call.dispatch && { dispatch: call.dispatch }),
              ...(call.dispatch?.failure && { failure: call.dispatch.failure }),
              ...(event.display && { display: event.display }),
            },
          }),
        ];
      }
      case 'context_usage':
        return main
          ? [{ sessionUpdate: 'usage_update', used: event.usedTokens, size: event.windowTokens }]
          : [];
      case 'compaction':
        return main
          ? [warning(`compacted the conversation: ${event.summarizedMessages} older messages summarised`)]
          : [];
      case 'warn':
        return main ? [warning(event.message)] : [];
      case 'hook_decision':
        // A sub-agent's hooks too: a deny there is what the editor's user needs to see.
        return isNotableHookDecision(event)
          ? [
              warning(
                `${event.agent.length > 0 ? `${event.agent.join('/')}: ` : ''}${hookDecisionLine(event)}`,
              ),
            ]
          : [];
      case 'network_denied':
        return [warning(describeNetworkDenial(event))];
      case 'dispatch_end': {
        const call = open.get(idFor(event.parentCallId, event.agent.slice(0, -1)));
        if (call) call.dispatch = event.record;
        return [];
      }
      default:
        // Answers (approval, ask_user, turn limit) are the session's business; errors end the prompt.
        return [];
    }
  };

  return {
    map,
    running(callId, agent) {
      const call = open.get(idFor(callId, agent));
      return call && call.status === 'pending' ? [start(call)] : [];
    },
    toolCall(callId, agent) {
      const call = open.get(idFor(callId, agent));
      if (!call) return { toolCallId: idFor(callId, agent) };
      return { toolCallId: call.toolCallId, title: call.title, kind: call.kind, status: call.status };
    },
    openAskUser(agent) {
      let found: string | undefined;
      for (const call of open.values()) {
        if (call.name === 'ask_user' && sameAgent(call.agent, agent)) found = call.toolCallId;
      }
      return found;
    },
    closeOpen() {
      const updates = [...open.values()].map((call) =>
        update(call, {
          status: 'failed',
          content: [{ type: 'content', content: { type: 'text', text: 'Not run: the turn ended first.' } }],
        }),
      );
      open.clear();
      return updates;
    },
  };
}

function sameAgent(a: AgentPath, b: AgentPath): boolean {
  return a.length === b.length && a.every((part, i) => part === b[i]);
}

/** A running call's content: its output's tail, then its latest progress line. */
function runningContent(call: OpenCall): ToolCallContent[] {
  const output = call.tail === '' ? [] : contentForOutput(call.tail, call.cut);
  return call.progress === undefined
    ? output
    : [...output, { type: 'content', content: { type: 'text', text: call.progress } }];
}
