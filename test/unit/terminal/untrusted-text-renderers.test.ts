import { execFileSync } from 'node:child_process';
import chalk from 'chalk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHeadlessResponder } from '../../../harness/cli/headless-responder.js';
import { createTerminalEmitter, type TerminalStream } from '../../../harness/emitters/terminal-emitter.js';
import { distPath } from '../../../harness/project-paths.js';
import { chromeLines } from '../../../harness/tui/components/screen.js';
import { agentTreeLines } from '../../../harness/tui/render/agent-tree-lines.js';
import { BlockLineCache } from '../../../harness/tui/render/line-cache.js';
import { statusSegments } from '../../../harness/tui/render/status-line.js';
import { createUiReducer } from '../../../harness/tui/ui-reducer.js';
import { initialUiState, type UiState } from '../../../harness/tui/ui-state.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import { HOSTILE_TEXT } from '../../support/hostile-sequences.js';

/** Anything but SGR a terminal could act on, or that hides text (tab and newline aside). */
const ACTIVE =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/;
const SGR = /\x1b\[[0-9;:]*m/g;
const withoutColour = (text: string): string => text.replace(SGR, '');
const H = HOSTILE_TEXT;

/** Every event type that carries text, each with the whole corpus in every string it has. */
function hostileEvents(): EngineEvent[] {
  const command = {
    type: 'command' as const,
    command: H,
    exitCode: 0,
    signal: null,
    durationMs: 3,
    timedOut: false,
    truncated: false,
  };
  const subAgentResult = JSON.stringify({
    agent_id: 'agent-1\x1b]0;PWNED\x07',
    result: { status: 'completed\u009b2J', summary: H, files_changed: [], tests_run: [], follow_ups: [] },
  });
  return [
    { type: 'turn_start', agent: [], turn: 1 },
    { type: 'thinking_start', agent: [] },
    { type: 'thinking_delta', agent: [], text: H },
    { type: 'thinking_done', agent: [], text: H },
    { type: 'text_delta', agent: [], text: H.slice(0, 40) },
    { type: 'text_delta', agent: [], text: H.slice(40) },
    { type: 'text_done', agent: [], text: H },
    { type: 'tool_call_start', agent: [], id: 'c1', name: 'shell', args: { command: H } },
    { type: 'tool_output_line', agent: [], id: 'c1', stream: 'stdout', text: H },
    {
      type: 'tool_call_result',
      agent: [],
      id: 'c1',
      name: 'shell',
      output: H,
      isError: false,
      display: command,
      durationMs: 3,
    },
    { type: 'tool_call_start', agent: [], id: 'c2', name: 'read_file', args: { path: H } },
    {
      type: 'tool_call_result',
      agent: [],
      id: 'c2',
      name: 'read_file',
      output: H.split('\n')
        .map((line, i) => `${i + 1}\t${line}`)
        .join('\n'),
      isError: false,
      display: { type: 'file', path: H, startLine: 1, endLine: 9, totalLines: 9, truncated: false },
      durationMs: 1,
    },
    {
      type: 'tool_call_start',
      agent: [],
      id: 'c3',
      name: `edit_file${H}`,
      args: { path: H, old_string: H, new_string: `${H}!` },
    },
    {
      type: 'tool_call_result',
      agent: [],
      id: 'c3',
      name: `edit_file${H}`,
      output: H,
      isError: true,
      display: {
        type: 'diff',
        path: H,
        diff: `--- ${H}\n+++ ${H}\n-${H}\n+${H}`,
        additions: 1,
        deletions: 1,
        created: false,
      },
      durationMs: 1,
    },
    { type: 'tool_call_start', agent: [], id: 'c4', name: 'spawn_agent', args: { task: H } },
    { type: 'turn_start', agent: ['agent-1'], turn: 1, parentCallId: 'c4' },
    { type: 'tool_call_start', agent: ['agent-1'], id: 'c5', name: `list_dir${H}`, args: { path: H } },
    { type: 'turn_end', agent: ['agent-1'], turn: 1, reason: 'complete' },
    {
      type: 'tool_call_result',
      agent: [],
      id: 'c4',
      name: 'spawn_agent',
      output: subAgentResult,
      isError: false,
      durationMs: 9,
    },
    { type: 'action_blocked', agent: [], id: 'c3', name: 'edit_file', by: 'policy', reason: H },
    { type: 'info', agent: [], message: H },
    { type: 'warn', agent: [], message: H },
    { type: 'error', agent: [], message: H },
    {
      type: 'approval_request',
      agent: [],
      requestId: 'r1',
      callId: 'c6',
      name: 'shell',
      args: { command: H, cwd: H },
      effect: 'execute',
    },
    {
      type: 'ask_user_request',
      agent: [],
      requestId: 'r2',
      questions: [{ question: H, options: [H, `other${H}`] }],
    },
  ];
}

let level: typeof chalk.level;
beforeEach(() => {
  level = chalk.level;
  chalk.level = 3;
});
afterEach(() => {
  chalk.level = level;
});

describe('untrusted text reaches no renderer active', () => {
  it('the terminal UI: every block expanded and collapsed, the questions, the agent tree, the status bar', () => {
    const cache = new BlockLineCache();
    const reduce = createUiReducer(cache.metrics(() => 30));
    let state: UiState = initialUiState({ now: 0, columns: 80, rows: 40, model: `claude${H}` });
    state = reduce(state, { type: 'events', events: hostileEvents(), now: 1 }).state;
    state = reduce(state, { type: 'flash', text: H, now: 2 }).state;
    state = reduce(state, { type: 'backend', now: 2, model: `model${H}` }).state;
    const lines: string[] = [];
    for (const block of state.blocks) {
      for (const expanded of [false, true]) lines.push(...cache.lines(block, expanded, 80));
    }
    const chrome = chromeLines(state);
    lines.push(...chrome.pending, ...chrome.prompt, ...agentTreeLines(state, 0, 40, 20));
    const status = statusSegments(state);
    lines.push(status.doing, status.model);
    // The second question: ask_user's, once the approval is answered.
    const asking = { ...state, pending: state.pending.slice(1) };
    lines.push(...chromeLines(asking).pending);
    // An overlay of sessions whose titles came from prompts and the model.
    const picker = reduce(state, {
      type: 'overlay',
      overlay: {
        type: 'sessions',
        sessions: [
          {
            id: 's1',
            title: H,
            lastActivity: new Date(0).toISOString(),
            tokens: 1,
            cost: '$0',
            current: false,
          },
        ],
        selected: 0,
      },
    }).state;
    lines.push(...chromeLines(picker).overlay);
    // The person's own paste in the prompt.
    lines.push(...chromeLines({ ...state, pending: [], input: { text: H, cursor: 5 } }).prompt);

    expect(state.blocks.length).toBeGreaterThan(5);
    const shown = lines.map(withoutColour).join('\n');
    expect(shown).not.toMatch(ACTIVE);
    expect(shown).toContain('␛]52;c;');
    expect(shown).toContain('␍Allow shell');
  });

  it('the text emitter, on a colour terminal: text, calls, results, sub-agent summaries, notices', () => {
    const out: string[] = [];
    const err: string[] = [];
    const tty = (chunks: string[]): TerminalStream => ({
      isTTY: true,
      write: (text: string) => chunks.push(text),
    });
    const emitter = createTerminalEmitter({ stdout: tty(out), stderr: tty(err), env: {}, toolOutput: true });
    for (const event of hostileEvents()) emitter.emit(event);
    emitter.close();
    const written = out.join('');
    expect(withoutColour(written)).not.toMatch(ACTIVE);
    // On stderr the spinner's own \r is the one control besides colours: drawn, then wiped.
    const spinner = /\r[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [a-z ]*|\r *\r/g;
    expect(withoutColour(err.join('')).replace(spinner, '')).not.toMatch(ACTIVE);
    expect(err.join('')).toContain('warning: OSC 52 clipboard (BEL): ␛]52;c;');
    expect(written).toContain('␛]52;c;');
    // The sub-agent's summary, parsed from its JSON result (where `\u001b` is raw once parsed).
    expect(withoutColour(written)).toMatch(
      /↳ spawn_agent: completed<U\+009B>2J · 0 tool calls · 0 tokens\n.*OSC 52 clipboard \(BEL\): ␛\]52;c;/,
    );
  });

  it("the -p prompts: approval preview and ask_user's question and options", async () => {
    const asked: string[] = [];
    const responder = createHeadlessResponder(
      { emit: () => {} },
      {
        send: () => {},
        interactive: true,
        note: (line) => asked.push(line),
        ask: async (question) => {
          asked.push(question);
          return 'n';
        },
        paint: { removed: chalk.red, added: chalk.green, dim: chalk.dim },
      },
    );
    for (const event of hostileEvents()) responder.emit(event);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked.length).toBeGreaterThanOrEqual(2);
    const shown = asked.map(withoutColour).join('\n');
    expect(shown).not.toMatch(ACTIVE);
    expect(shown).toContain('$ OSC 52 clipboard (BEL): ␛]52;c;');
    expect(shown).toContain('␛]0;PWNED-TITLE-0␇');
  });

  it('a Markdown link is its text and URL, never an OSC 8 hyperlink, even where the terminal takes them', () => {
    // supports-hyperlinks decides when it loads: a process of its own that it is told to say yes.
    const module = distPath('harness', 'tui', 'render', 'markdown-lines.js');
    const lines = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { markdownLines } from ${JSON.stringify(module)};
         process.stdout.write(JSON.stringify(markdownLines('see [the docs](https://evil.example/x)', 80)));`,
      ],
      { env: { ...process.env, FORCE_HYPERLINK: '1' }, encoding: 'utf8' },
    );
    expect(JSON.parse(lines)).toEqual(['see the docs (https://evil.example/x)']);
  });
});
