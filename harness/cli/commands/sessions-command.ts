import { parseArgs } from 'node:util';
import { resolveWorkspace } from '../../runtime/start-executor.js';
import { formatSessionList } from '../../session/format-session-list.js';
import { formatTranscript } from '../../session/format-transcript.js';
import { sessionDispatches } from '../../session/session-dispatches.js';
import { SessionError } from '../../session/session-error.js';
import { loadSession } from '../../session/session-reader.js';
import { listSessions, resolveSession, sessionTotals } from '../../session/session-store.js';
import { inertText, jsonFor } from '../../terminal/inert-text.js';
import { type CommandMain, parsed, WORKSPACE_JSON } from '../cli-flags.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

/** `skate sessions list [--json]` and `skate sessions show ID [--json]`. */
export const run: CommandMain = async (args) => {
  const [sub, ...rest] = args;
  const { values, positionals } = parsed(() =>
    parseArgs({ args: rest, options: WORKSPACE_JSON, allowPositionals: true }),
  );
  if (values.help) return help();
  const workspace = await resolveWorkspace(values.workspace);
  if (sub === 'list') {
    if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
    return sessionsListCommand({ workspace, json: values.json });
  }
  if (sub === 'show') {
    const [id, ...extra] = positionals;
    if (!id) throw new UsageError('skate sessions show needs a session id (see `skate sessions list`)');
    if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
    return sessionsShowCommand({ workspace, id, json: values.json });
  }
  throw new UsageError('the sessions commands are `skate sessions list` and `skate sessions show ID`');
};

/** Where a command prints; process.stdout and process.stderr unless a test passes its own. */
export interface CommandOutput {
  out?: { write(text: string): unknown; isTTY?: boolean };
  err?: { write(text: string): unknown };
  /** The clock relative times are measured against. */
  now?: Date;
}

export interface SessionsListOptions extends CommandOutput {
  workspace: string;
  json: boolean;
}

/**
 * `skate sessions list [--json]`: the workspace's sessions, newest first.
 * Unreadable files are reported on stderr and never hide the others.
 */
export async function sessionsListCommand(options: SessionsListOptions): Promise<number> {
  const { out = process.stdout, err = process.stderr, now = new Date() } = options;
  const { sessions, problems } = await listSessions(options.workspace);
  for (const problem of problems) err.write(`skate: skipped ${inertText(problem.error.message)}\n`);
  // Titles come from prompts and the model: shown inert (JSON: `jsonFor`, escaped on a terminal).
  if (options.json) out.write(`${jsonFor(out, sessions, 2)}\n`);
  else if (sessions.length === 0) out.write('no sessions yet in this workspace\n');
  else out.write(inertText(formatSessionList(sessions, now)));
  return 0;
}

export interface SessionsShowOptions extends CommandOutput {
  workspace: string;
  /** A session id or a unique prefix of one. */
  id: string;
  json: boolean;
}

/**
 * `skate sessions show ID [--json]`: one session's transcript, or with
 * `--json` its header, events and totals. An unknown or ambiguous id is a
 * usage error; an unreadable session file exits 1.
 */
export async function sessionsShowCommand(options: SessionsShowOptions): Promise<number> {
  const { out = process.stdout, err = process.stderr, now = new Date() } = options;
  if (options.id.trim() === '') throw new UsageError('skate sessions show needs a session id');
  let file: string;
  try {
    ({ file } = await resolveSession(options.workspace, options.id));
  } catch (error) {
    if (error instanceof SessionError && (error.code === 'missing' || error.code === 'ambiguous'))
      throw new UsageError(error.message);
    throw error;
  }
  try {
    const session = await loadSession(file);
    const warnings = [...session.warnings];
    const total = await sessionTotals(options.workspace, session, warnings);
    for (const warning of warnings) err.write(`skate: warning: ${inertText(warning)}\n`);
    // The model's words, tools' output, files' contents: shown inert (JSON: escaped on a terminal).
    out.write(
      options.json
        ? `${jsonFor(out, { header: session.header, events: session.events, totals: total, ...dispatchOf(session.events) }, 2)}\n`
        : inertText(formatTranscript(session, total, now)),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SessionError)) throw error;
    err.write(`skate: ${inertText(error.message)}\n`);
    return 1;
  }
}

/** The session's dispatch telemetry, as a field of `sessions show --json` (none when it dispatched nothing). */
function dispatchOf(events: Parameters<typeof sessionDispatches>[0]): {
  dispatch?: ReturnType<typeof sessionDispatches>;
} {
  const dispatch = sessionDispatches(events);
  return dispatch ? { dispatch } : {};
}
