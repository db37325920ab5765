import type { EngineEvent } from '../../shared/engine-events.js';
import { describeNetworkDecision, describeNetworkDenial } from '../../shared/network-allowlist.js';
import { addUsage, zeroUsage } from '../engine/token-usage.js';
import { hookDecisionLine, isNotableHookDecision } from '../hooks/hook-decision-line.js';
import { estimateCostUsd } from '../provider/model-catalog.js';
import { joinInert } from '../terminal/inert-text.js';
import { inertValue } from '../terminal/inert-value.js';
import { attachOrigins, type MessageLoggedEvent } from './attach-origins.js';
import {
  type Block,
  MAX_STREAMED_LINES,
  type SubAgentRun,
  type ToolBlock,
  type UiState,
} from './ui-state.js';

/** The streamed lines of a call that has none (shared: blocks are never changed in place). */
const NO_LINES: string[] = [];

/**
 * An engine event, a prompt the person sent (in a recorded conversation being
 * shown again), or a message landing in the session log.
 */
export type UiEvent =
  | EngineEvent
  | { type: 'user_prompt'; agent: []; text: string }
  | MessageLoggedEvent
  /** The person's answer to a refused host (live, or from the session log). */
  | {
      type: 'network_decision';
      agent: [];
      host: string;
      port: number;
      decision: 'once' | 'session' | 'never' | 'refused';
    };

/**
 * Folds engine events into the UI state. Takes a batch so that loading a long
 * session copies the block list once, not once per event; blocks themselves
 * are replaced, never changed, so a renderer may cache by identity.
 *
 * Every event is made inert first (`inertValue`: each string in it, whatever
 * the field): what a model, a tool or a file produced enters the UI's state
 * only as text that cannot drive the terminal, for every renderer of it.
 */
export function applyEngineEvents(state: UiState, events: readonly UiEvent[], now: number): UiState {
  const blocks = state.blocks.slice();
  let { nextId, usage, agents, pending } = state;
  let running = state.running;
  let agentsCopied = false;
  const newId = (prefix: string): string => `${prefix}-${nextId++}`;
  const agent = (path: string[]): SubAgentRun => {
    const key = path.join('/');
    if (!agentsCopied) {
      agents = { ...agents };
      agentsCopied = true;
    }
    const run = agents[key] ?? {
      path: key,
      status: 'running' as const,
      startedAt: now,
      toolCalls: 0,
      tokens: zeroUsage(),
    };
    agents[key] = run;
    return run;
  };
  const updateAgent = (path: string[], change: Partial<SubAgentRun>): void => {
    const key = path.join('/');
    agents[key] = { ...agent(path), ...change };
  };
  /** The link of a sub-agent to the call that spawned it, with that call's task (the parent's tool call). */
  const spawnedBy = (path: string[], callId: string): Partial<SubAgentRun> => {
    const parent = path.length > 1 ? agents[path.slice(0, -1).join('/')] : undefined;
    const index = parent ? -1 : toolIndex(callId);
    const task = parent
      ? parent.spawns?.[callId]
      : index >= 0
        ? taskOf((blocks[index] as ToolBlock).args)
        : undefined;
    return { parentCallId: callId, ...(task ? { task } : {}) };
  };
  const last = (): Block | undefined => blocks[blocks.length - 1];
  /** Tool blocks are found from the end: the call an event names is almost always a recent one. */
  const toolIndex = (callId: string): number => {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const block = blocks[i]!;
      if (block.kind === 'tool' && block.callId === callId) return i;
    }
    return -1;
  };
  const updateTool = (callId: string, change: (block: ToolBlock) => ToolBlock): void => {
    const index = toolIndex(callId);
    if (index >= 0) blocks[index] = change(blocks[index] as ToolBlock);
  };
  const endStreaming = (): void => {
    const block = last();
    if (block && (block.kind === 'assistant' || block.kind === 'thinking') && block.streaming) {
      blocks[blocks.length - 1] = { ...block, streaming: false };
    }
  };

  for (const untrusted of events) {
    const event = inertValue(untrusted);
    if (event.agent.length > 0) {
      // Sub-agents live in the agent tree, not in the main conversation.
      const run = agent(event.agent);
      switch (event.type) {
        case 'turn_start':
          updateAgent(event.agent, { status: 'running', turns: event.turn });
          if (event.parentCallId !== undefined && run.parentCallId === undefined) {
            updateAgent(event.agent, spawnedBy(event.agent, event.parentCallId));
          }
          break;
        case 'turn_end':
          updateAgent(event.agent, {
            status:
              event.reason === 'complete' ? 'done' : event.reason === 'cancelled' ? 'cancelled' : 'error',
            endedAt: now,
          });
          break;
        case 'tool_call_start':
          updateAgent(event.agent, {
            toolCalls: run.toolCalls + 1,
            lastTool: event.name,
            ...(event.parentCallId !== undefined &&
              run.parentCallId === undefined &&
              spawnedBy(event.agent, event.parentCallId)),
            ...(event.name === 'spawn_agent' && {
              spawns: { ...run.spawns, [event.id]: taskOf(event.args) ?? '' },
            }),
          });
          break;
        case 'dispatch_end': {
          const { record } = event;
          const input = record.input_tokens + record.cache_read_tokens + record.cache_write_tokens;
          updateAgent(event.agent, {
            status:
              record.status === 'completed' ? 'done' : record.failure === 'cancelled' ? 'cancelled' : 'error',
            endedAt: now,
            ...(record.agent_name !== undefined && { agentName: record.agent_name }),
            ...(record.failure !== undefined && { failure: record.failure }),
            cacheHitRate: input > 0 ? record.cache_read_tokens / input : 0,
          });
          break;
        }
        case 'usage':
          updateAgent(event.agent, { tokens: addUsage(run.tokens, event.turn) });
          usage = addTurnUsage(usage, event.turn, state.model, false);
          break;
        default:
          break;
      }
      if (event.type !== 'approval_request' && event.type !== 'ask_user_request') continue;
    }
    switch (event.type) {
      case 'message_logged':
        attachOrigins(blocks, event.logged, state.blocks.length);
        break;
      case 'user_prompt':
        endStreaming();
        blocks.push({ kind: 'user', id: newId('user'), text: event.text });
        break;
      case 'turn_start':
        running = true;
        break;
      case 'text_delta': {
        const block = last();
        if (block?.kind === 'assistant' && block.streaming) {
          blocks[blocks.length - 1] = { ...block, text: joinInert(block.text, event.text) };
        } else {
          endStreaming();
          blocks.push({ kind: 'assistant', id: newId('text'), text: event.text, streaming: true });
        }
        break;
      }
      case 'text_done': {
        const block = last();
        if (block?.kind === 'assistant' && block.streaming) {
          blocks[blocks.length - 1] = { ...block, text: event.text, streaming: false };
        } else if (event.text !== '') {
          // A reply whose text never streamed (a replayed session).
          blocks.push({ kind: 'assistant', id: newId('text'), text: event.text, streaming: false });
        }
        break;
      }
      case 'thinking_start':
        endStreaming();
        blocks.push({ kind: 'thinking', id: newId('thinking'), text: '', streaming: true });
        break;
      case 'thinking_delta': {
        const block = last();
        if (block?.kind === 'thinking' && block.streaming) {
          blocks[blocks.length - 1] = { ...block, text: joinInert(block.text, event.text) };
        } else {
          blocks.push({ kind: 'thinking', id: newId('thinking'), text: event.text, streaming: true });
        }
        break;
      }
      case 'thinking_done': {
        const block = last();
        if (block?.kind === 'thinking' && block.streaming) {
          blocks[blocks.length - 1] = { ...block, text: event.text, streaming: false };
        }
        break;
      }
      case 'tool_call_start':
        endStreaming();
        blocks.push({
          kind: 'tool',
          id: newId('tool'),
          callId: event.id,
          name: event.name,
          args: event.args,
          startedAt: now,
          status: 'running',
          streamed: NO_LINES,
          streamedCount: 0,
        });
        break;
      case 'tool_output_line':
        // Progress is a state: the latest replaces the one before, on the call's own line.
        if (event.stream === 'progress') {
          updateTool(event.id, (block) => ({ ...block, progress: event.text }));
          break;
        }
        updateTool(event.id, (block) => {
          const streamed =
            block.streamed.length >= MAX_STREAMED_LINES
              ? [...block.streamed.slice(1 - MAX_STREAMED_LINES), event.text]
              : [...block.streamed, event.text];
          return { ...block, streamed, streamedCount: block.streamedCount + 1 };
        });
        break;
      case 'tool_call_result':
        updateTool(event.id, (block) => ({
          ...block,
          // The output as it streamed is in the result now: keeping both doubled a shell call's memory.
          streamed: NO_LINES,
          status: block.status === 'blocked' ? 'blocked' : event.isError ? 'error' : 'done',
          result: {
            output: event.output,
            isError: event.isError,
            durationMs: event.durationMs,
            ...(event.display !== undefined && { display: event.display }),
          },
        }));
        pending = pending.filter((item) => !(item.type === 'approval' && item.callId === event.id));
        break;
      case 'action_blocked':
        updateTool(event.id, (block) => ({ ...block, status: 'blocked', blockedReason: event.reason }));
        break;
      case 'approval_request':
        pending = [
          ...pending,
          {
            type: 'approval',
            requestId: event.requestId,
            callId: event.callId,
            name: event.name,
            args: event.args,
            effect: event.effect,
            choice: 0,
          },
        ];
        break;
      case 'ask_user_request':
        pending = [
          ...pending,
          {
            type: 'ask_user',
            requestId: event.requestId,
            questions: event.questions,
            index: 0,
            answers: [],
            choice: 0,
            selected: [],
            text: '',
            ...(event.network && { network: event.network }),
          },
        ];
        break;
      case 'loop_cap_reached':
        pending = [
          ...pending,
          { type: 'loop_cap', requestId: event.requestId, iterations: event.iterations, choice: 0 },
        ];
        break;
      case 'usage':
        usage = addTurnUsage(usage, event.turn, state.model, true);
        break;
      case 'context_usage':
        usage = { ...usage, context: { usedTokens: event.usedTokens, windowTokens: event.windowTokens } };
        break;
      case 'compaction':
        blocks.push({
          kind: 'notice',
          id: newId('notice'),
          level: 'compaction',
          text: `compacted ${event.summarizedMessages} earlier messages into a summary of ${event.summaryTokens} tokens`,
        });
        break;
      case 'hook_decision':
        if (!isNotableHookDecision(event)) break;
        endStreaming();
        blocks.push({
          kind: 'notice',
          id: newId('notice'),
          level: ['allow', 'context', 'none'].includes(event.outcome) ? 'info' : 'warn',
          text: hookDecisionLine(event),
        });
        break;
      case 'info':
      case 'warn':
      case 'error':
        endStreaming();
        blocks.push({ kind: 'notice', id: newId('notice'), level: event.type, text: event.message });
        break;
      case 'network_decision':
        endStreaming();
        blocks.push({
          kind: 'notice',
          id: newId('notice'),
          level: event.decision === 'once' || event.decision === 'session' ? 'info' : 'warn',
          text: describeNetworkDecision(event),
        });
        break;
      case 'network_denied':
        endStreaming();
        blocks.push({
          kind: 'notice',
          id: newId('notice'),
          level: 'warn',
          text: describeNetworkDenial(event),
        });
        break;
      case 'turn_end':
        endStreaming();
        // The conversation says where a turn was cut short (Ctrl-C), as it says everything else.
        if (event.reason === 'cancelled') {
          blocks.push({ kind: 'notice', id: newId('notice'), level: 'interrupted', text: 'interrupted' });
        }
        // Calls still open when a turn ends were cancelled with it.
        for (let i = blocks.length - 1; i >= 0; i--) {
          const block = blocks[i]!;
          if (block.kind === 'tool' && block.status === 'running' && event.reason !== 'complete') {
            blocks[i] = { ...block, status: 'cancelled' };
          }
          if (block.kind === 'user') break;
        }
        break;
    }
  }
  return { ...state, blocks, nextId, usage, agents, pending, running, now };
}

function addTurnUsage(
  usage: UiState['usage'],
  turn: UiState['usage']['total'],
  model: string,
  main: boolean,
): UiState['usage'] {
  return {
    ...usage,
    ...(main && { turn }),
    total: addUsage(usage.total, turn),
    costUsd: usage.costUsd + (estimateCostUsd(model, turn) ?? 0),
  };
}

/** The `task` of a spawn_agent call's arguments. */
function taskOf(args: unknown): string | undefined {
  const task = (args as { task?: unknown } | null)?.task;
  return typeof task === 'string' ? task : undefined;
}
