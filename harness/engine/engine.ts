import { randomUUID } from 'node:crypto';
import type { ContentBlock, Message, StopReason } from '../../shared/conversation.js';
import type { AgentPath, TokenUsage } from '../../shared/engine-events.js';
import type { ToolDefinition } from '../../shared/tool.js';
import type { ModelRequest, ModelTool } from '../provider/model-provider.js';
import { compactConversation } from './compact-conversation.js';
import type { Emitter, EngineContext, MetaTool, RunOutcome, RunRequest } from './engine-types.js';
import { type GuardedEmitter, guardEmitter } from './guarded-emitter.js';
import { type GuardedLog, guardLog } from './guarded-log.js';
import { messageText, toolUses } from './message-text.js';
import {
  checkRepetition,
  RepetitionGuard,
  type RepetitionLimits,
  repetitionStopMessage,
} from './repetition-guard.js';
import { runToolCalls } from './run-tool-calls.js';
import { streamTurn, type TurnResult } from './stream-turn.js';
import { systemPromptFor } from './system-prompt.js';
import { addUsage, promptTokens, zeroUsage } from './token-usage.js';
import {
  inputErrorOf,
  looksLikeTextToolCall,
  REPEATED_GARBLED_CALLS,
  TEXT_TOOL_CALL_NUDGE,
} from './tool-call-repair.js';

export interface EngineOptions {
  /** Compact once the last turn's prompt filled more than this share of the window. Default 0.8. */
  compactionThreshold?: number;
  /** Exchanges kept verbatim by a compaction. Default 3. */
  keepExchanges?: number;
  /** Output limit of the summary request. Default 8192 (or the run's maxTokens, if lower). */
  maxSummaryTokens?: number;
  /** When a model repeating the same calls and results is warned, then stopped. Default 5, then 6. */
  repetition?: Partial<RepetitionLimits>;
}

/** The tools of one run: fetched once, then offered on every turn (with the deferred ones loaded by then). */
interface Toolset {
  modelTools: ModelTool[];
  /** Deferred tools by name: offered once loaded, after `modelTools`, in the order they were loaded. */
  deferred: Map<string, ModelTool>;
  definitions: Map<string, ToolDefinition>;
  metaTools: Map<string, MetaTool>;
}

/** Everything one run mutates; the Engine itself holds no state between runs. */
interface RunState {
  readonly ctx: EngineContext;
  readonly request: RunRequest;
  readonly agent: AgentPath;
  readonly out: GuardedEmitter;
  readonly log: GuardedLog;
  messages: Message[];
  total: TokenUsage;
  turns: number;
  toolCalls: number;
  finalMessage: string;
  /** A meta tool (complete_task) asked to end the run after this turn. */
  ending: boolean;
  /** A hook (`continue: false` at PreToolUse or PostToolUse) stopped the run: why. */
  stoppedByHook?: string;
  /** Why the last complete reply stopped. */
  stopReason?: StopReason;
  /** The last turn had a call whose arguments were not JSON: its repair turn is this one. */
  repairing?: boolean;
  /** The model was told once that it wrote a tool call as text. */
  toldTextToolCall?: boolean;
  /** A Stop hook already sent the agent back in this run (Claude Code's `stop_hook_active`). */
  stopHookActive: boolean;
}

export type Compacted = 'compacted' | 'skipped' | 'failed' | 'cancelled';

/**
 * The agent loop: streams a model turn, runs the tool calls it made (all at
 * once), appends the results, and goes round until the model stops calling
 * tools, the turn cap is refused, the provider fails, or `ctx.signal` aborts.
 *
 * `turn_start`/`turn_end` bracket one model turn and the tool calls it made;
 * a run is one or more turns, and its end is the resolved `RunOutcome`.
 */
export class Engine {
  private readonly threshold: number;
  private readonly keepExchanges: number;
  private readonly maxSummaryTokens: number;
  private readonly repetition: Partial<RepetitionLimits>;

  constructor(options: EngineOptions = {}) {
    this.threshold = options.compactionThreshold ?? 0.8;
    this.keepExchanges = options.keepExchanges ?? 3;
    this.maxSummaryTokens = options.maxSummaryTokens ?? 8192;
    this.repetition = options.repetition ?? {};
  }

  async run(ctx: EngineContext, request: RunRequest, emitter: Emitter): Promise<RunOutcome> {
    const state: RunState = {
      ctx,
      request,
      agent: ctx.agent ?? [],
      out: guardEmitter(emitter),
      log: guardLog(ctx.log),
      messages: [...(request.history ?? [])],
      total: zeroUsage(),
      turns: 0,
      toolCalls: 0,
      finalMessage: '',
      ending: false,
      stopHookActive: false,
    };
    const { agent, out, log } = state;
    const submitted = await userPromptSubmit(state);
    if (submitted.status === 'blocked') {
      out.emit({ type: 'error', agent, message: submitted.message, code: 'hook' });
      return outcome(state, 'error', submitted.message, 'blocked');
    }
    const prompt = promptMessage(request, submitted.context);
    state.messages.push(prompt);
    log.userMessage(prompt);

    let toolset: Toolset;
    let toolsVersion = ctx.toolChanges?.version();
    try {
      toolset = await loadToolset(ctx, state);
    } catch (error) {
      const message = `Could not list the executor's tools: ${error instanceof Error ? error.message : String(error)}`;
      out.emit({ type: 'error', agent, message, code: 'executor' });
      return outcome(state, 'error', message, 'executor');
    }
    const system = systemPromptFor(request);
    // A local server's window is asked for before it is needed; what was found or assumed is said once.
    const windowNote = await ctx.provider.prepareModel?.(request.model);
    if (windowNote) out.emit({ type: 'warn', agent, message: windowNote });
    const windowTokens = ctx.provider.contextWindow(request.model);
    const maxTurns = Math.max(1, request.maxTurns);
    const repetitionGuard = new RepetitionGuard(this.repetition);
    let allowedTurns = maxTurns;
    let lastPromptTokens = 0;

    for (;;) {
      if (ctx.signal.aborted) return outcome(state, 'cancelled');
      if (state.turns >= allowedTurns) {
        const decision = await askToContinue(state);
        if (decision !== 'continue') return outcome(state, decision);
        allowedTurns = state.turns + maxTurns;
      }
      if (state.turns > 0 && lastPromptTokens > this.threshold * windowTokens) {
        lastPromptTokens = 0;
        if ((await this.compact(state, windowTokens, 'threshold')) === 'cancelled') {
          return outcome(state, 'cancelled');
        }
      }
      if (ctx.toolChanges && ctx.toolChanges.version() !== toolsVersion) {
        toolsVersion = ctx.toolChanges.version();
        const changed = { ...ctx, metaTools: ctx.toolChanges.metaTools() };
        toolset = keepToolOrder(toolset, await loadToolset(changed, state).catch(() => toolset));
      }
      // A run continuing another (a reminder) numbers its turns on from that one's.
      const turn = ++state.turns + (request.turnOffset ?? 0);
      out.emit({ type: 'turn_start', agent, turn });
      const modelRequest = (): ModelRequest => ({
        model: request.model,
        system,
        ...(request.systemPrompt !== undefined &&
          request.systemCachePrefix !== undefined && { systemCachePrefix: request.systemCachePrefix }),
        // A snapshot: the conversation grows after the request is made.
        messages: [...state.messages],
        tools: offeredTools(toolset, ctx),
        maxTokens: request.maxTokens,
        ...(request.thinkingBudgetTokens !== undefined && {
          thinkingBudgetTokens: request.thinkingBudgetTokens,
        }),
      });
      const result = await this.streamWithOverflowRetry(state, modelRequest, windowTokens);
      if (result.status === 'cancelled') {
        keepPartial(state, result.partial);
        out.emit({ type: 'turn_end', agent, turn, reason: 'cancelled' });
        return outcome(state, 'cancelled');
      }
      if (result.status === 'error') {
        out.emit({ type: 'error', agent, message: result.error.message, code: result.error.kind });
        out.emit({ type: 'turn_end', agent, turn, reason: 'error' });
        return outcome(state, 'error', result.error.message, result.error.kind);
      }
      lastPromptTokens = recordReply(state, result, windowTokens);

      const calls = toolUses(result.message);
      if (calls.length === 0 && !state.toldTextToolCall && result.stopReason === 'end_turn') {
        if (looksLikeTextToolCall(result.message, new Set(toolset.definitions.keys()))) {
          state.toldTextToolCall = true;
          out.emit({ type: 'warn', agent, message: 'The model wrote a tool call as text; telling it once.' });
          const nudge: Message = { role: 'user', content: [{ type: 'text', text: TEXT_TOOL_CALL_NUDGE }] };
          state.messages.push(nudge);
          log.userMessage(nudge);
          out.emit({ type: 'turn_end', agent, turn, reason: 'complete' });
          continue;
        }
      }
      if (calls.length === 0) {
        if (result.stopReason === 'max_tokens') {
          out.emit({
            type: 'warn',
            agent,
            message: `The reply was cut off at the output limit (${request.maxTokens} tokens).`,
          });
        } else if (result.stopReason === 'refusal') {
          out.emit({ type: 'warn', agent, message: 'The model declined to continue.' });
        }
        // Background sub-agents' results that are due go in as the next user message, and the run goes on.
        const arrived = (await ctx.arrivals?.settle(ctx.signal)) ?? [];
        if (ctx.signal.aborted) {
          out.emit({ type: 'turn_end', agent, turn, reason: 'cancelled' });
          return outcome(state, 'cancelled');
        }
        if (arrived.length > 0) {
          takeArrivals(state, arrived, { role: 'user', content: [] }, true);
          out.emit({ type: 'turn_end', agent, turn, reason: 'complete' });
          continue;
        }
        if (await sentBackByStopHook(state)) {
          out.emit({ type: 'turn_end', agent, turn, reason: 'complete' });
          continue;
        }
        out.emit({ type: 'turn_end', agent, turn, reason: 'complete' });
        return outcome(state, 'complete');
      }
      state.toolCalls += calls.length;
      const results = await runToolCalls(calls, {
        tools: ctx.tools,
        metaTools: toolset.metaTools,
        definitions: toolset.definitions,
        ...(ctx.loadedTools && { loadedTools: ctx.loadedTools }),
        approval: typeof request.approval === 'function' ? request.approval() : request.approval,
        ...(request.approvalUnattended && { approvalUnattended: true }),
        ...(request.toolRules && { toolRules: request.toolRules }),
        inbox: ctx.inbox,
        signal: ctx.signal,
        emitter: out,
        agent,
        hooks: ctx.hooks,
        addUsage: (usage) => {
          state.total = addUsage(state.total, usage);
        },
        endRun: () => {
          state.ending = true;
        },
        stopByHook: (reason) => {
          state.stoppedByHook ??= reason;
          state.ending = true;
        },
      });
      const repetition = checkRepetition(repetitionGuard, calls, results, out, agent);
      const resultMessage: Message = { role: 'user', content: results };
      takeArrivals(state, ctx.arrivals?.take() ?? [], resultMessage, false);
      const interrupted = ctx.signal.aborted;
      out.emit({ type: 'turn_end', agent, turn, reason: interrupted ? 'cancelled' : 'complete' });
      if (interrupted) return outcome(state, 'cancelled');
      if (state.stoppedByHook !== undefined) {
        // Not a completed run: scripts read `blocked` (exit 4) rather than success.
        const message = state.stoppedByHook;
        out.emit({ type: 'error', agent, message, code: 'hook' });
        return outcome(state, 'error', message, 'blocked');
      }
      if (state.ending) {
        // A sub-agent that delivered its result (complete_task) is done: SubagentStop hears it, but cannot send it back.
        if (agent.length > 0 && ctx.hooks?.has('SubagentStop')) {
          const verdict = await ctx.hooks.fire(
            'SubagentStop',
            { stop_hook_active: state.stopHookActive },
            { signal: ctx.signal, emit: (event) => out.emit(event) },
          );
          if (verdict.block)
            out.emit({
              type: 'warn',
              agent,
              message: `a SubagentStop hook asked to go on, but the sub-agent already delivered its result: ${verdict.block}`,
            });
        }
        return outcome(state, 'complete');
      }
      const garbled = calls.some((call) => inputErrorOf(call) !== undefined);
      if (garbled && state.repairing) {
        out.emit({ type: 'error', agent, message: REPEATED_GARBLED_CALLS, code: 'invalid_tool_call' });
        return outcome(state, 'error', REPEATED_GARBLED_CALLS);
      }
      state.repairing = garbled;
      if (repetition.kind === 'stop') {
        const message = repetitionStopMessage(repetition);
        out.emit({ type: 'error', agent, message, code: 'repetition' });
        return outcome(state, 'repetition', message, 'repetition');
      }
    }
  }

  /**
   * Compacts a conversation between runs (a frontend's "compact now"), as a
   * run would when the context fills up: the `compaction` event and log entry,
   * or a warning saying why not. Returns the conversation to continue with.
   */
  async compactNow(
    ctx: EngineContext,
    request: Pick<RunRequest, 'model' | 'maxTokens'>,
    messages: readonly Message[],
    emitter: Emitter,
  ): Promise<{ status: Compacted; messages: Message[] }> {
    const state: RunState = {
      ctx,
      request: { ...request, prompt: { text: '' }, maxTurns: 1, approval: 'auto' },
      agent: ctx.agent ?? [],
      out: guardEmitter(emitter),
      log: guardLog(ctx.log),
      messages: [...messages],
      total: zeroUsage(),
      turns: 0,
      toolCalls: 0,
      finalMessage: '',
      ending: false,
      stopHookActive: false,
    };
    const status = await this.compact(state, ctx.provider.contextWindow(request.model), 'manual');
    return { status, messages: state.messages };
  }

  /** One model turn; a context overflow gets one compaction and one more try of the same turn. */
  private async streamWithOverflowRetry(
    state: RunState,
    modelRequest: () => ModelRequest,
    windowTokens: number,
  ): Promise<TurnResult> {
    const { ctx, agent, out } = state;
    const attempt = (): Promise<TurnResult> =>
      streamTurn({
        provider: ctx.provider,
        request: modelRequest(),
        signal: ctx.signal,
        emitter: out,
        agent,
      });
    const result = await attempt();
    if (result.status !== 'error' || result.error.kind !== 'context_overflow') return result;
    const compacted = await this.compact(state, windowTokens, 'overflow');
    if (compacted === 'compacted') return attempt();
    if (compacted === 'cancelled') return { status: 'cancelled', partial: [] };
    return result;
  }

  /** Summarises the older conversation in place; failures leave it as it was and say why. */
  private async compact(
    state: RunState,
    windowTokens: number,
    why: 'threshold' | 'overflow' | 'manual',
  ): Promise<Compacted> {
    const { ctx, request, agent, out } = state;
    if (ctx.hooks?.has('PreCompact')) {
      await ctx.hooks.fire(
        'PreCompact',
        { trigger: why === 'manual' ? 'manual' : 'auto', custom_instructions: '' },
        { signal: ctx.signal, emit: (event) => out.emit(event) },
      );
    }
    const result = await compactConversation({
      provider: ctx.provider,
      model: request.model,
      messages: state.messages,
      signal: ctx.signal,
      windowTokens,
      keepExchanges: this.keepExchanges,
      maxSummaryTokens: Math.min(this.maxSummaryTokens, request.maxTokens),
    });
    if (result.status === 'compacted') {
      state.messages = result.messages;
      state.total = addUsage(state.total, result.usage);
      out.emit({
        type: 'compaction',
        agent,
        summarizedMessages: result.replacedMessages,
        summaryTokens: result.usage.outputTokens,
      });
      state.log.compaction(result.summary, result.replacedMessages, result.usage, request.model);
      return 'compacted';
    }
    if (result.status === 'skipped' || result.status === 'failed') {
      const detail = result.status === 'skipped' ? result.reason : result.error.message;
      const context =
        why === 'overflow'
          ? 'The conversation no longer fits the context window'
          : 'The context is nearly full';
      out.emit({ type: 'warn', agent, message: `${context}, and compacting it did not work: ${detail}.` });
    }
    return result.status;
  }
}

/** Takes a finished reply into the conversation and reports its usage; returns its prompt tokens. */
function recordReply(
  state: RunState,
  result: Extract<TurnResult, { status: 'done' }>,
  windowTokens: number,
): number {
  const { agent, out } = state;
  state.messages.push(result.message);
  state.stopReason = result.stopReason;
  state.log.assistantMessage(result.message, result.usage, state.request.model);
  state.total = addUsage(state.total, result.usage);
  state.finalMessage = messageText(result.message);
  const prompt = promptTokens(result.usage);
  const perSecond = result.elapsedMs > 0 ? (result.usage.outputTokens * 1000) / result.elapsedMs : 0;
  out.emit({
    type: 'usage',
    agent,
    turn: result.usage,
    total: state.total,
    elapsedMs: result.elapsedMs,
    outputTokensPerSecond: perSecond,
  });
  out.emit({ type: 'context_usage', agent, usedTokens: prompt + result.usage.outputTokens, windowTokens });
  return prompt;
}

/** Emits `loop_cap_reached` and waits for the frontend's decision. */
async function askToContinue(state: RunState): Promise<'continue' | 'loop_cap' | 'cancelled'> {
  const { ctx, agent, out } = state;
  const requestId = randomUUID();
  out.emit({ type: 'loop_cap_reached', agent, requestId, iterations: state.turns });
  try {
    const answer = await ctx.inbox.waitFor('loop_decision', requestId, ctx.signal);
    return answer.decision === 'continue' ? 'continue' : 'loop_cap';
  } catch (error) {
    if (ctx.signal.aborted) return 'cancelled';
    const message = error instanceof Error ? error.message : String(error);
    out.emit({
      type: 'warn',
      agent,
      message: `No answer to the turn limit question (${message}); stopping.`,
    });
    return 'loop_cap';
  }
}

async function loadToolset(ctx: EngineContext, state: RunState): Promise<Toolset> {
  const hostTools = await ctx.tools.listTools();
  const metaTools = new Map((ctx.metaTools ?? []).map((tool) => [tool.definition.name, tool]));
  const definitions = new Map<string, ToolDefinition>();
  for (const tool of hostTools) {
    if (metaTools.has(tool.name)) {
      const message = `The executor's ${tool.name} tool is hidden by the harness's own tool of that name.`;
      state.out.emit({ type: 'warn', agent: state.agent, message });
    } else definitions.set(tool.name, tool);
  }
  for (const [name, tool] of metaTools) definitions.set(name, tool.definition);
  const modelTools: ModelTool[] = [];
  const deferred = new Map<string, ModelTool>();
  for (const { name, description, inputSchema } of definitions.values()) {
    if (metaTools.get(name)?.deferred) deferred.set(name, { name, description, inputSchema });
    else modelTools.push({ name, description, inputSchema });
  }
  return { modelTools, deferred, definitions, metaTools };
}

/**
 * A changed toolset offered in the order the previous one was, new tools after: the request's
 * cached prefix then stays up to the first tool that changed or went.
 */
function keepToolOrder(previous: Toolset, next: Toolset): Toolset {
  const fresh = new Map(next.modelTools.map((tool) => [tool.name, tool]));
  const kept = previous.modelTools.flatMap((tool) => fresh.get(tool.name) ?? []);
  const keptNames = new Set(kept.map((tool) => tool.name));
  return { ...next, modelTools: [...kept, ...next.modelTools.filter((tool) => !keptNames.has(tool.name))] };
}

/** The run's tools, then the deferred ones loaded so far: appended, so the cached prefix stays. */
function offeredTools(toolset: Toolset, ctx: EngineContext): ModelTool[] {
  const loaded = ctx.loadedTools?.list() ?? [];
  if (loaded.length === 0 || toolset.deferred.size === 0) return toolset.modelTools;
  const added = loaded.flatMap((name) => toolset.deferred.get(name) ?? []);
  return added.length > 0 ? [...toolset.modelTools, ...added] : toolset.modelTools;
}

function promptMessage(request: RunRequest, hookContext: readonly string[] = []): Message {
  const content: ContentBlock[] = (request.prompt.images ?? []).map((image) => ({ type: 'image', ...image }));
  content.push({ type: 'text', text: request.prompt.text });
  // Where Claude Code puts it: context a UserPromptSubmit hook added, after the prompt.
  for (const text of hookContext) content.push({ type: 'text', text });
  return { role: 'user', content };
}

/**
 * UserPromptSubmit, for a person's prompt (the main agent's runs; a sub-agent's prompt is the
 * harness's): a block refuses the prompt before the model or the log sees it.
 */
async function userPromptSubmit(
  state: RunState,
): Promise<{ status: 'blocked'; message: string } | { status: 'ok'; context: string[] }> {
  const { ctx, agent, out } = state;
  if (agent.length > 0 || !ctx.hooks?.has('UserPromptSubmit')) return { status: 'ok', context: [] };
  const verdict = await ctx.hooks.fire(
    'UserPromptSubmit',
    { prompt: state.request.prompt.text },
    { signal: ctx.signal, emit: (event) => out.emit(event) },
  );
  const refusal = verdict.block ?? verdict.stop;
  if (refusal !== undefined)
    return { status: 'blocked', message: `A UserPromptSubmit hook blocked the prompt: ${refusal}` };
  return { status: 'ok', context: verdict.context };
}

/**
 * Stop (main agent) or SubagentStop, when the model ends its turn: a block sends it back with
 * the hook's reason as the next user message (`stop_hook_active` tells the hook it did so before).
 */
async function sentBackByStopHook(state: RunState): Promise<boolean> {
  const { ctx, agent, out } = state;
  const event = agent.length > 0 ? 'SubagentStop' : 'Stop';
  if (!ctx.hooks?.has(event) || ctx.signal.aborted) return false;
  const verdict = await ctx.hooks.fire(
    event,
    { stop_hook_active: state.stopHookActive },
    { signal: ctx.signal, emit: (e) => out.emit(e) },
  );
  if (!verdict.block || verdict.stop !== undefined) return false;
  state.stopHookActive = true;
  const message: Message = {
    role: 'user',
    content: [{ type: 'text', text: `${event} hook feedback:\n${verdict.block}` }],
  };
  state.messages.push(message);
  state.log.userMessage(message);
  return true;
}

/**
 * Appends `message` with what arrived at this turn boundary (as text after any tool results, as a
 * queued message would be), logs it, and tells the frontends each arrival was taken in.
 */
function takeArrivals(state: RunState, arrived: readonly string[], message: Message, alone: boolean): void {
  const { agent, out, log } = state;
  const content = [...message.content, ...arrived.map((text) => ({ type: 'text' as const, text }))];
  const whole: Message = { ...message, content };
  state.messages.push(whole);
  if (alone) log.userMessage(whole);
  else log.toolResults(whole);
  for (const text of arrived) {
    const first = text.split('\n', 1)[0] ?? '';
    out.emit({ type: 'info', agent, message: `taken in: ${first.replace(/^\[Skate: |\]$/g, '')}` });
  }
}

/** An interrupted reply keeps the text that streamed, in the conversation and as the final message. */
function keepPartial(state: RunState, partial: ContentBlock[]): void {
  if (partial.length === 0) return;
  const message: Message = { role: 'assistant', content: partial };
  state.messages.push(message);
  state.log.assistantMessage(message, zeroUsage(), state.request.model);
  state.finalMessage = messageText(message);
}

function outcome(
  state: RunState,
  status: RunOutcome['status'],
  error?: string,
  errorCode?: string,
): RunOutcome {
  return {
    status,
    finalMessage: state.finalMessage,
    turns: state.turns,
    toolCalls: state.toolCalls,
    usage: state.total,
    messages: state.messages,
    ...(state.stopReason !== undefined && { stopReason: state.stopReason }),
    ...(error !== undefined && { error }),
    ...(errorCode !== undefined && { errorCode }),
    ...(state.out.failures > 0 && { emitterFailures: state.out.failures }),
    ...(state.log.failures > 0 && { logFailures: state.log.failures }),
  };
}
