import { parseRuntimeCommandLine } from '../../shared/parse-runtime-command-line.js';
import type { RuntimeCommand } from '../../shared/runtime-command.js';
import type { ApprovalMode } from '../engine/engine-types.js';
import { knownModels } from '../provider/model-catalog.js';

/**
 * Everything a `:` command, a `/` alias or a leader chord can ask for: one
 * union, so the keys, the command line and the help overlay never match
 * strings of their own.
 */
export type UiCommand =
  | { type: 'quit' }
  | { type: 'backend'; command: RuntimeCommand }
  /** The network flipped from what the executor reports now. */
  | { type: 'toggle_network' }
  /** The next approval mode: auto → ask → deny-writes → auto. */
  | { type: 'cycle_approval' }
  | { type: 'edit_plan' }
  | { type: 'agent_tree' }
  | { type: 'which_key' }
  | { type: 'help' }
  | { type: 'sessions' }
  | { type: 'fork_focused' }
  | { type: 'policy' }
  | { type: 'cost' }
  /** The executor panel: each executor's policy, limits and live denials. */
  | { type: 'executors' }
  /** The conversation printed into the terminal's own scrollback, out of the full-screen view. */
  | { type: 'scrollback' }
  /** The session's MCP servers: where each stands, and a remote one's login. */
  | { type: 'mcp' }
  /** A remote MCP server's OAuth login (as `skate mcp login`); `browser`: open the URL in one. */
  | { type: 'mcp_login'; server: string; browser: boolean }
  | { type: 'mcp_logout'; server: string };

export type ParsedCommand = { ok: true; command: UiCommand } | { ok: false; error: string };

/** The `:` commands with what they do, for `:help` and errors. */
export const COMMAND_HELP: ReadonlyArray<readonly [string, string]> = [
  [':q', 'quit (also :quit)'],
  [':clear', 'new conversation (the old session stays on disk)'],
  [':model NAME', 'the model of the next turns'],
  [':compact', 'summarise the older conversation now'],
  [':sessions', "pick one of this workspace's sessions"],
  [':resume ID', 'continue session ID'],
  [':fork', 'a new session branching at the focused block'],
  [':approval MODE', 'auto | ask | deny-writes, from the next tool calls on'],
  [':policy', 'the resolved policy and what this machine enforces'],
  [':cost', 'tokens and cost of this session, sub-agents included'],
  [':executors', 'each executor: policy, limits, calls and live denials'],
  [':mcp', 'the MCP servers and their state'],
  [':mcp login S', 'log in to the remote MCP server S (--no-browser)'],
  [':mcp logout S', "forget the remote MCP server S's login"],
  [':scrollback', "the conversation in the terminal's own scrollback, to scroll and copy"],
  [':help', 'this list'],
];

const APPROVAL_MODES: readonly ApprovalMode[] = ['auto', 'ask', 'deny-writes'];

/**
 * Parses a command line without its leading `:` or `/` (`model claude-x`).
 * The slash aliases people know from other agents parse to the same commands.
 */
export function parseUiCommand(line: string): ParsedCommand {
  const [name = '', ...rest] = line.trim().split(/\s+/);
  const arg = rest.join(' ');
  const ok = (command: UiCommand): ParsedCommand => ({ ok: true, command });
  const needs = (what: string): ParsedCommand => ({ ok: false, error: `:${name} needs ${what}` });
  const noArg = (command: UiCommand): ParsedCommand =>
    arg === '' ? ok(command) : { ok: false, error: `:${name} takes no argument` };
  switch (name) {
    case 'q':
    case 'quit':
    case 'exit':
      return noArg({ type: 'quit' });
    case 'resume':
      if (arg === '') return ok({ type: 'sessions' });
      return runtime(name, arg);
    case 'clear':
    case 'compact':
      return runtime(name, arg);
    case 'model': {
      // The catalog decides, as `skate serve` does: a name it does not list would fail at the next turn.
      const known = knownModels();
      if (arg !== '' && !known.includes(arg)) {
        return { ok: false, error: `no model ${arg} in the catalog; known: ${known.join(', ')}` };
      }
      return runtime(name, arg);
    }
    case 'sessions':
      return noArg({ type: 'sessions' });
    case 'fork':
      return noArg({ type: 'fork_focused' });
    case 'approval':
      if (!APPROVAL_MODES.includes(arg as ApprovalMode)) return needs(APPROVAL_MODES.join(' | '));
      return ok({ type: 'backend', command: { type: 'set_approval', approval: arg as ApprovalMode } });
    case 'policy':
      return noArg({ type: 'policy' });
    case 'cost':
      return noArg({ type: 'cost' });
    case 'executors':
      return noArg({ type: 'executors' });
    case 'scrollback':
      return noArg({ type: 'scrollback' });
    case 'mcp':
      return mcpCommand(rest);
    case 'help':
    case 'h':
      return noArg({ type: 'help' });
    case '':
      return { ok: false, error: 'no command' };
    default:
      return { ok: false, error: `unknown command :${name} (:help lists them)` };
  }
}

/** `:mcp`, `:mcp login NAME [--no-browser]`, `:mcp logout NAME`. */
function mcpCommand(words: readonly string[]): ParsedCommand {
  const [sub, ...rest] = words;
  if (sub === undefined) return { ok: true, command: { type: 'mcp' } };
  const browser = !rest.includes('--no-browser');
  const names = rest.filter((word) => word !== '--no-browser');
  const [server, extra] = names;
  if ((sub !== 'login' && sub !== 'logout') || server === undefined || extra !== undefined)
    return { ok: false, error: ':mcp takes nothing, login NAME [--no-browser], or logout NAME' };
  if (sub === 'logout')
    return rest.length === 1
      ? { ok: true, command: { type: 'mcp_logout', server } }
      : { ok: false, error: ':mcp logout takes one server name' };
  return { ok: true, command: { type: 'mcp_login', server, browser } };
}

/** A runtime command, parsed as every frontend parses it (shared/parse-runtime-command-line.ts). */
function runtime(name: string, arg: string): ParsedCommand {
  const parsed = parseRuntimeCommandLine(name, arg)!;
  return parsed.ok
    ? { ok: true, command: { type: 'backend', command: parsed.command } }
    : { ok: false, error: `:${name} ${parsed.error}` };
}

/** The slash aliases recognised at the start of a prompt (name, argument hint, what it does), for completion. */
export const SLASH_ALIASES_HELP: ReadonlyArray<readonly [string, string, string]> = [
  ['clear', '', 'new conversation (the old session stays on disk)'],
  ['model', '<name>', 'the model of the next turns'],
  ['compact', '', 'summarise the older conversation now'],
  ['resume', '[id]', 'continue a session'],
  ['help', '', 'the commands'],
];

/** The slash aliases recognised at the start of a prompt; anything else is sent to the model as typed. */
const SLASH_ALIASES = new Set(SLASH_ALIASES_HELP.map(([name]) => name));

/** A prompt such as `/model x` as a command, or undefined when it is a prompt for the model. */
export function slashCommand(prompt: string): ParsedCommand | undefined {
  const match = /^\/(\w+)/.exec(prompt.trimStart());
  if (!match || !SLASH_ALIASES.has(match[1]!)) return undefined;
  return parseUiCommand(prompt.trimStart().slice(1));
}
