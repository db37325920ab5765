import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import * as z from 'zod';
import { InputLine } from '../../shared/claude-stream-lines.js';

/** Longest input line taken: a prompt is text, and a line past this is refused, not buffered on. */
const MAX_LINE_CHARS = 4 * 1024 * 1024;

/**
 * `--input-format stream-json`: the prompts of a multi-turn run, one JSON line each on `input`,
 * yielded in order as they arrive (the caller runs each once the one before ended). An
 * `interrupt` line calls `onInterrupt` as soon as it is read. A line that is not one of these is
 * told (`onBadLine`) and skipped: the program writing them learns of it without losing the run.
 */
export async function* streamJsonPrompts(
  input: Readable,
  onInterrupt: () => void,
  onBadLine: (message: string) => void,
): AsyncGenerator<string> {
  const queue: string[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    const parsed = parseLine(line);
    if (typeof parsed === 'string') onBadLine(parsed);
    else if (parsed.type === 'interrupt') onInterrupt();
    else {
      const { content } = parsed.message;
      queue.push(typeof content === 'string' ? content : content.map((block) => block.text).join('\n'));
    }
    wake?.();
  });
  lines.on('close', () => {
    ended = true;
    wake?.();
  });
  try {
    for (;;) {
      const next = queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    lines.close();
  }
}

function parseLine(line: string): InputLine | string {
  if (line.length > MAX_LINE_CHARS)
    return `an input line of ${line.length} characters was skipped (at most ${MAX_LINE_CHARS})`;
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return 'an input line that is not JSON was skipped';
  }
  const parsed = InputLine.safeParse(raw);
  if (parsed.success) return parsed.data;
  return `an input line was skipped: it is neither {"type":"user","message":{"role":"user","content":…}} nor {"type":"interrupt"} (${z.prettifyError(parsed.error).split('\n')[0]})`;
}
