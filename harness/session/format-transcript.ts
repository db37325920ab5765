import type { ContentBlock } from '../../shared/conversation.js';
import type { SessionEvent } from '../../shared/session-format.js';
import { estimateCostUsd } from '../provider/model-catalog.js';
import { formatCost, formatUsage, relativeTime, uniquePrefixLength } from './format-units.js';
import { noticeLine } from './notice-line.js';
import { formatDispatches, sessionDispatches } from './session-dispatches.js';
import type { LoadedSession } from './session-reader.js';
import { truncate } from './session-summary.js';
import { sessionToolCalls } from './session-tool-calls.js';
import { ownTotals, type SessionTotals } from './session-totals.js';

/**
 * The readable transcript `skate sessions show` prints: each event under its
 * id (a unique prefix, which `--fork-at` accepts), tool calls with their
 * arguments summarised and results, named after their calls, cut to their first
 * line, usage per model turn, then totals.
 */
export function formatTranscript(session: LoadedSession, total: SessionTotals, now: Date): string {
  const { header } = session;
  const idLength = uniquePrefixLength(session.events.map((event) => event.id));
  const lines: string[] = [
    `session ${header.id}`,
    `  created ${header.created} (${relativeTime(header.created, now)}) · model ${header.model} · policy ${header.policy}`,
    `  cwd ${header.cwd}`,
  ];
  if (header.forkedFrom)
    lines.push(`  forked from session ${header.forkedFrom.sessionId} at event ${header.forkedFrom.eventId}`);
  if (header.parentSessionId) lines.push(`  sub-agent of session ${header.parentSessionId}`);
  const names = new Map(sessionToolCalls(session.events).map((call) => [call.callId, call.name]));
  for (const event of session.events) {
    const head = `#${event.id.slice(0, idLength)}`;
    const body = describe(event, names);
    lines.push('', `${head} ${body[0]}`, ...body.slice(1).map((line) => `  ${line}`));
  }
  const own = ownTotals(session);
  const turns = session.events.filter((event) => event.payload.type === 'assistant_message').length;
  lines.push('', `totals: ${turns} model turns · ${formatUsage(own.usage)} · est. ${formatCost(own)}`);
  if (JSON.stringify(total) !== JSON.stringify(own))
    lines.push(`  with sub-agents: ${formatUsage(total.usage)} · est. ${formatCost(total)}`);
  if (header.forkedFrom) lines.push('  (a fork counts only what was spent after the fork point)');
  const dispatch = sessionDispatches(session.events);
  if (dispatch) lines.push(formatDispatches(dispatch));
  return `${lines.join('\n')}\n`;
}

/** The heading and indented lines of one event; `names` are tool names by call id. */
function describe(event: SessionEvent, names: ReadonlyMap<string, string>): string[] {
  const { payload } = event;
  switch (payload.type) {
    case 'user_message': {
      const results = payload.message.content.some((block) => block.type === 'tool_result');
      return [results ? 'tool results' : 'user', ...blocks(payload.message.content, names)];
    }
    case 'assistant_message': {
      const cost = estimateCostUsd(payload.model, payload.usage);
      const costText = formatCost({
        costUsd: cost ?? 0,
        unpricedModels: cost === undefined ? [payload.model] : [],
        usage: payload.usage,
      });
      return [
        `assistant · ${payload.model} · ${formatUsage(payload.usage)} · ${costText}`,
        ...blocks(payload.message.content, names),
      ];
    }
    case 'compaction':
      return [
        `compaction: ${payload.replacedMessages} messages replaced by a summary`,
        ...firstLines(payload.summary, 3),
      ];
    case 'model_change':
      return [`model: ${payload.from} → ${payload.to}`];
    case 'network_decision':
      return [`network: ${payload.host}:${payload.port} ${payload.decision}`];
    case 'notice':
      return [noticeLine(payload.event)];
    case 'title':
      return [`title: ${payload.title}`];
    case 'subagent_link':
      return [
        `sub-agent session ${payload.childSessionId} (call ${payload.callId})`,
        ...firstLines(payload.task, 1),
      ];
  }
}

function blocks(content: readonly ContentBlock[], names: ReadonlyMap<string, string>): string[] {
  return content.flatMap((block) => blockLines(block, names));
}

function blockLines(block: ContentBlock, names: ReadonlyMap<string, string>): string[] {
  switch (block.type) {
    case 'text':
      return block.text.split('\n');
    case 'tool_use':
      return [`→ ${block.name} ${summariseArgs(block.input)}`];
    case 'tool_result': {
      const lines = block.output.split('\n');
      const more = lines.length > 1 ? ` (+${lines.length - 1} more lines)` : '';
      const name = names.get(block.callId) ?? block.callId;
      return [`${block.isError ? '✗' : '←'} ${name}: ${truncate(lines[0] ?? '', 120)}${more}`];
    }
    case 'thinking':
      return [`(thinking, ${block.thinking.length} characters)`];
    case 'redacted_thinking':
      return ['(redacted thinking)'];
    case 'image':
      return [`[${block.mediaType} image]`];
  }
}

/** `path="src/a.ts" limit=20`: each value as JSON, long ones cut, the whole line kept short. */
function summariseArgs(input: unknown): string {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return truncate(JSON.stringify(input) ?? '', 120);
  const parts = Object.entries(input).map(
    ([key, value]) => `${key}=${truncate(JSON.stringify(value) ?? 'undefined', 60)}`,
  );
  return truncate(parts.join(' ').replaceAll('\n', '\\n'), 160);
}

function firstLines(text: string, count: number): string[] {
  const lines = text.split('\n');
  return lines.length > count ? [...lines.slice(0, count), `… (+${lines.length - count} more lines)`] : lines;
}
