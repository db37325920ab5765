import type { SessionHeader } from '../../shared/session-format.js';
import { fallbackTitle } from './fallback-title.js';
import type { LoadedSession } from './session-reader.js';
import { ownTotals, type SessionTotals } from './session-totals.js';

/** What `skate sessions list` shows of one session. */
export interface SessionSummary {
  id: string;
  file: string;
  created: string;
  /** The timestamp of the last event (the header's `created` for a session without events). */
  lastActivity: string;
  /** The id of the last event; uuid v7 ids order events within one millisecond too. */
  lastEventId?: string;
  /** The model in use at the end. */
  model: string;
  cwd: string;
  policy: string;
  parentSessionId?: string;
  forkedFrom?: SessionHeader['forkedFrom'];
  /** The first user prompt's text, whitespace collapsed, cut to 100 characters. */
  firstPrompt: string;
  /** The latest recorded title; without one, the first line of the first prompt (`fallbackTitle`). */
  title: string;
  /** Whether `title` was recorded (a model wrote it) rather than taken from the first prompt. */
  titled: boolean;
  /** User prompts. */
  prompts: number;
  /** Model turns: assistant messages, as the engine counts turns. */
  turns: number;
  events: number;
  /** Spent by this session alone (a fork: since the fork point). */
  own: SessionTotals;
  /** `own` plus every sub-agent session below it. */
  total: SessionTotals;
  warnings: readonly string[];
}

const PROMPT_CHARS = 100;

/** Summarises a loaded session; `total` starts as `own` until sub-agents are rolled up. */
export function summarizeSession(session: LoadedSession): SessionSummary {
  const { header, events } = session;
  let firstPrompt: string | undefined;
  let prompts = 0;
  let turns = 0;
  let model = header.model;
  let title: string | undefined;
  for (const { payload } of events) {
    if (payload.type === 'user_message') {
      // A tool results message (whatever user text rode along) is not a prompt.
      if (payload.message.content.some((block) => block.type === 'tool_result')) continue;
      prompts++;
      firstPrompt ??= promptText(payload.message.content);
    } else if (payload.type === 'assistant_message') {
      turns++;
      model = payload.model;
    } else if (payload.type === 'model_change') model = payload.to;
    else if (payload.type === 'title') title = payload.title;
  }
  const own = ownTotals(session);
  return {
    id: header.id,
    file: session.file,
    created: header.created,
    lastActivity: events.at(-1)?.timestamp ?? header.created,
    ...(events.length > 0 ? { lastEventId: events.at(-1)!.id } : {}),
    model,
    cwd: header.cwd,
    policy: header.policy,
    ...(header.parentSessionId ? { parentSessionId: header.parentSessionId } : {}),
    ...(header.forkedFrom ? { forkedFrom: header.forkedFrom } : {}),
    firstPrompt: truncate((firstPrompt ?? '').replace(/\s+/g, ' ').trim(), PROMPT_CHARS),
    title: title ?? fallbackTitle(firstPrompt ?? ''),
    titled: title !== undefined,
    prompts,
    turns,
    events: events.length,
    own,
    total: own,
    warnings: session.warnings,
  };
}

function promptText(content: readonly { type: string; text?: string }[]): string {
  const text = content
    .map((block) => (block.type === 'text' ? block.text : block.type === 'image' ? '[image]' : ''))
    .join(' ');
  return text.trim();
}

/** Cuts `text` to `max` characters, ending in an ellipsis when it was cut. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
