/**
 * `--allowedTools` / `--disallowedTools`: which calls an agent may make, by tool name and, for
 * `name(pattern)`, by the call's main argument (a shell command, a path, a URL). Checked at the
 * one tool-call choke point (`runToolCalls`) for every agent of a run, sub-agents included. A
 * statement of intent, not a boundary: the sandbox policy is what the kernel enforces.
 */
export interface ToolRule {
  tool: string;
  /** The text inside the parentheses, as given. */
  pattern?: string;
  /** The pattern compiled: `*` matches anything; a trailing `:*` (Claude Code's form) a prefix. */
  matcher?: RegExp;
}

export interface ToolRules {
  /** When set, only calls matching one of these run (tools the run needs to end always do). */
  allow?: readonly ToolRule[];
  /** Calls matching one of these are refused, whatever `allow` says. */
  deny: readonly ToolRule[];
}

/** Tools that end a run (a sub-agent's result, a schema-checked answer): never refused by a rule. */
const RUN_ENDING_TOOLS = new Set(['complete_task', 'structured_output']);

/** Shell syntax that chains, substitutes or redirects: an allow pattern never vouches for it. */
const SHELL_CONTROL = /[;&|`\n\r<>]|\$\(/;

/** Splits a flag's value into rules: `"shell(git *) read_file"`, `"shell(git *),read_file"`. */
export function parseToolRules(values: readonly string[]): ToolRule[] {
  const rules: ToolRule[] = [];
  for (const value of values) {
    for (const item of splitOutsideParens(value)) {
      const match = /^([A-Za-z0-9_.-]+)(?:\((.*)\))?$/s.exec(item);
      if (!match)
        throw new TypeError(`"${item}" is not a tool rule (write NAME or NAME(pattern), e.g. shell(git *))`);
      const [, tool, pattern] = match;
      rules.push(
        pattern === undefined ? { tool: tool! } : { tool: tool!, pattern, matcher: compile(pattern) },
      );
    }
  }
  return rules;
}

/** Why `call` is refused under `rules`, or undefined when it may run. */
export function refusedByRules(rules: ToolRules, call: { name: string; input: unknown }): string | undefined {
  if (RUN_ENDING_TOOLS.has(call.name)) return undefined;
  const subject = subjectOf(call.name, call.input);
  const denied = rules.deny.find((rule) => matchesDeny(rule, call.name, subject));
  if (denied) return `--disallowedTools refuses ${describe(denied)}`;
  if (rules.allow && !rules.allow.some((rule) => matchesAllow(rule, call.name, subject))) {
    const allowed = rules.allow.map(describe).join(', ');
    const how =
      call.name === 'shell' && subject !== undefined && SHELL_CONTROL.test(subject)
        ? ' (a command that chains, substitutes or redirects is never matched by a pattern: run one command per call)'
        : '';
    return `--allowedTools allows only ${allowed}${how}`;
  }
  return undefined;
}

/** The argument a pattern is matched against: a command, a path, a URL, a search pattern. */
function subjectOf(name: string, input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const fields = input as Record<string, unknown>;
  const key = name === 'shell' ? 'command' : ['path', 'url', 'pattern', 'task'].find((k) => k in fields);
  const value = key === undefined ? undefined : fields[key];
  return typeof value === 'string' ? value : undefined;
}

function matchesAllow(rule: ToolRule, name: string, subject: string | undefined): boolean {
  if (rule.tool !== name) return false;
  if (!rule.matcher) return true;
  if (subject === undefined) return false;
  if (name === 'shell' && SHELL_CONTROL.test(subject)) return false;
  return rule.matcher.test(subject.trim());
}

function matchesDeny(rule: ToolRule, name: string, subject: string | undefined): boolean {
  if (rule.tool !== name) return false;
  if (!rule.matcher) return true;
  if (subject === undefined) return false;
  // Each command of a chain counts: `cd x && rm -rf y` is refused by shell(rm *).
  const parts = name === 'shell' ? [subject, ...subject.split(/[;&|\n\r]+|\$\(|`/)] : [subject];
  return parts.some((part) => rule.matcher!.test(part.trim()));
}

function compile(pattern: string): RegExp {
  const prefix = pattern.endsWith(':*');
  const body = (prefix ? pattern.slice(0, -2) : pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(prefix ? `^${body}(?:\\s.*)?$` : `^${body}$`, 's');
}

function describe(rule: ToolRule): string {
  return rule.pattern === undefined ? rule.tool : `${rule.tool}(${rule.pattern})`;
}

function splitOutsideParens(value: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of value) {
    if (char === '(') depth++;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current) items.push(current);
      current = '';
    } else current += char;
  }
  if (current) items.push(current);
  return items;
}

/** Claude Code's tool names, for a hint when a rule uses one. */
export const CLAUDE_CODE_NAMES: Record<string, string> = {
  Bash: 'shell',
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Grep: 'grep',
  Glob: 'glob',
  LS: 'list_dir',
  Task: 'spawn_agent',
  AskUserQuestion: 'ask_user',
};

/** A sentence naming the rules' tools that no agent of the run is offered, or undefined when all are. */
export function unknownRuleTools(rules: ToolRules, offered: readonly string[]): string | undefined {
  const names = new Set([...(rules.allow ?? []), ...rules.deny].map((rule) => rule.tool));
  const unknown = [...names].filter((name) => !offered.includes(name) && !RUN_ENDING_TOOLS.has(name));
  if (unknown.length === 0) return undefined;
  const hints = unknown
    .filter((name) => CLAUDE_CODE_NAMES[name])
    .map((name) => `${name} is Claude Code's name; Skate's is ${CLAUDE_CODE_NAMES[name]}`);
  return `no tool ${unknown.join(', ')} (tools: ${offered.join(', ')})${hints.length > 0 ? `; ${hints.join('; ')}` : ''}`;
}
