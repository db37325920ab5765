import { describe, expect, it } from 'vitest';
import { createTerminalEmitter, type TerminalStream } from '../../../harness/emitters/terminal-emitter.js';
import type { EngineEvent } from '../../../shared/engine-events.js';

function stream(isTTY: boolean): TerminalStream & { text: () => string } {
  const chunks: string[] = [];
  return { isTTY, write: (text: string) => chunks.push(text), text: () => chunks.join('') };
}

const run: EngineEvent[] = [
  { type: 'turn_start', agent: [], turn: 1 },
  { type: 'text_delta', agent: [], text: 'Let me ' },
  { type: 'text_delta', agent: [], text: 'look.' },
  { type: 'text_done', agent: [], text: 'Let me look.' },
  {
    type: 'tool_call_start',
    agent: [],
    id: 'a',
    name: 'shell',
    args: { command: 'ls -la\necho hi', cwd: 'src' },
  },
  { type: 'tool_call_start', agent: [], id: 'b', name: 'read_file', args: { path: 'README.md' } },
  { type: 'tool_output_line', agent: [], id: 'a', stream: 'stdout', text: 'total 8' },
  {
    type: 'tool_call_result',
    agent: [],
    id: 'b',
    name: 'read_file',
    output: '\n1\t# Skate\n2\t...',
    isError: false,
    display: { type: 'file', path: 'README.md', startLine: 1, endLine: 2, totalLines: 2, truncated: false },
    durationMs: 1,
  },
  {
    type: 'tool_call_result',
    agent: [],
    id: 'a',
    name: 'shell',
    output: 'total 8\n[exit code 0]',
    isError: false,
    display: {
      type: 'command',
      command: 'ls -la',
      exitCode: 0,
      signal: null,
      durationMs: 12,
      timedOut: false,
      truncated: false,
    },
    durationMs: 12,
  },
  { type: 'warn', agent: [], message: 'retrying' },
  { type: 'error', agent: [], message: 'it broke', code: 'unavailable' },
  { type: 'turn_end', agent: [], turn: 1, reason: 'error' },
];

function render(options: { outTTY: boolean; errTTY: boolean; env?: Record<string, string> }) {
  const stdout = stream(options.outTTY);
  const stderr = stream(options.errTTY);
  const emitter = createTerminalEmitter({
    stdout,
    stderr,
    env: options.env ?? {},
    spinnerIntervalMs: 60_000,
  });
  for (const event of run) emitter.emit(event);
  emitter.close();
  return { out: stdout.text(), err: stderr.text() };
}

describe('createTerminalEmitter', () => {
  it('streams text and shows tool calls compactly, without ANSI codes off a TTY', () => {
    const { out, err } = render({ outTTY: false, errTTY: false });
    expect(out).toBe(
      [
        'Let me look.',
        '▸ shell ls -la ⏎ echo hi',
        '▸ read_file README.md',
        // Right under its own start line, the result needs no name.
        '  ↳ lines 1–2 of 2',
        '  ↳ shell: exit 0 · 1 line · 12 ms',
        '    total 8',
        '',
      ].join('\n'),
    );
    expect(err).toBe('warning: retrying\nerror: it broke\n');
    expect(out + err).not.toContain('\x1b');
  });

  it('colours on a TTY: dim tool lines, yellow warnings, red errors', () => {
    const { out, err } = render({ outTTY: true, errTTY: true });
    expect(out).toContain('\x1b[2m▸ shell');
    expect(err).toContain('\x1b[33mwarning: retrying\x1b[39m');
    expect(err).toContain('\x1b[31merror: it broke\x1b[39m');
  });

  it('writes no ANSI codes at all with NO_COLOR, even on a TTY', () => {
    const { out, err } = render({ outTTY: true, errTTY: true, env: { NO_COLOR: '1' } });
    expect(out + err).not.toContain('\x1b');
  });

  it('spins on stderr only when it is a TTY, only until the model answers, and erases itself', () => {
    const tty = render({ outTTY: false, errTTY: true });
    expect(tty.err).toMatch(/^\r⠋ waiting for the model\r {23}\r/);
    expect(render({ outTTY: false, errTTY: false }).err).not.toContain('waiting');
  });

  it('shows tool output lines when asked, and tags sub-agent calls', () => {
    const stdout = stream(false);
    const emitter = createTerminalEmitter({ stdout, stderr: stream(false), env: {}, toolOutput: true });
    emitter.emit({ type: 'text_delta', agent: ['explore-1'], text: 'not shown' });
    emitter.emit({
      type: 'tool_call_start',
      agent: ['explore-1'],
      id: 'x',
      name: 'grep',
      args: { pattern: 'TODO' },
    });
    emitter.emit({
      type: 'tool_output_line',
      agent: ['explore-1'],
      id: 'x',
      stream: 'stdout',
      text: 'a.ts:1: TODO',
    });
    emitter.emit({
      type: 'tool_call_result',
      agent: ['explore-1'],
      id: 'x',
      name: 'grep',
      output: '',
      isError: true,
      durationMs: 1,
    });
    emitter.close();
    expect(stdout.text()).toBe(
      '[explore-1] ▸ grep TODO\n  │ a.ts:1: TODO\n  ↳ [explore-1] grep: (no output)\n',
    );
  });
});
