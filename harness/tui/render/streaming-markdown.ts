import type { Token } from 'marked';
import { markdownLines, markedFor } from './markdown-lines.js';

/** Link reference definitions apply to the whole reply, earlier text included: such a reply is rendered whole. */
const LINK_DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;

/**
 * Renders a reply that grows at its end (a streaming text block) without
 * re-parsing what is already settled, with the same lines as `markdownLines`
 * on the whole text.
 *
 * marked renders a document as the concatenation of its top-level tokens, each
 * rendered alone. Text appended later can only change the last block (a
 * paragraph becoming a setext heading or a table, a list or a fence growing),
 * and, while that block's first line is unfinished, join it to the block
 * before ("1. a" then a paragraph "2" that becomes the list's item "2. b").
 * Tokens before those are settled: rendered once and kept as lines. Each call
 * lexes and renders only the rest, so a frame costs the size of the last
 * blocks, not of the reply. Equality with a whole render is checked by the
 * unit tests, delta by delta, including fences opened and closed across deltas
 * and a width change.
 */
export class StreamingMarkdown {
  private width = -1;
  /** The settled source: a prefix of the text, ending where a top-level token ends. */
  private settled = '';
  /** The settled tokens' rendered output split at newlines; the last entry is the unterminated rest. */
  private settledLines: string[] = [''];
  /** Rendered whole on every call (a link definition, or a renderer failure). */
  private whole = false;

  /** The text as terminal lines, equal to `markdownLines(text, width)`. */
  lines(text: string, width: number): string[] {
    if (width !== this.width || !text.startsWith(this.settled)) this.reset(width);
    if (this.whole) return markdownLines(text, width);
    const rest = text.slice(this.settled.length);
    if (LINK_DEFINITION.test(rest)) {
      this.whole = true;
      return markdownLines(text, width);
    }
    const marked = markedFor(width);
    let tail: string;
    try {
      const tokens = marked.lexer(rest);
      const open = firstOpenToken(tokens, rest);
      if (open > 0) {
        const done = tokens.slice(0, open);
        this.settle(text, marked.parser(done), done);
      }
      tail = marked.parser(tokens.slice(open));
    } catch {
      this.whole = true;
      return markdownLines(text, width);
    }
    return joinTrimmed(this.settledLines, tail);
  }

  private reset(width: number): void {
    this.width = width;
    this.settled = '';
    this.settledLines = [''];
    this.whole = false;
  }

  private settle(text: string, rendered: string, tokens: readonly Token[]): void {
    const length = tokens.reduce((sum, token) => sum + token.raw.length, 0);
    this.settled = text.slice(0, this.settled.length + length);
    const parts = rendered.split('\n');
    const lines = this.settledLines;
    lines[lines.length - 1] += parts[0]!;
    for (let i = 1; i < parts.length; i++) lines.push(parts[i]!);
  }
}

/**
 * How many leading tokens are settled: all but the last non-blank one, and the
 * one before it too while the last one's first line is unfinished. A token
 * whose `raw` is not exactly its source (marked rewrites trailing blank text)
 * settles nothing, so the settled prefix is always the text's own.
 */
function firstOpenToken(tokens: readonly Token[], source: string): number {
  const starts: number[] = [];
  let at = 0;
  for (const token of tokens) {
    if (source.slice(at, at + token.raw.length) !== token.raw) return 0;
    starts.push(at);
    at += token.raw.length;
  }
  let open = lastNonBlank(tokens, tokens.length);
  if (open > 0 && !source.slice(starts[open]!).includes('\n')) open = lastNonBlank(tokens, open);
  return Math.max(0, open);
}

/** The index of the last token before `end` that is not blank space, or 0. */
function lastNonBlank(tokens: readonly Token[], end: number): number {
  for (let i = end - 1; i >= 0; i--) if (tokens[i]!.type !== 'space') return i;
  return 0;
}

/** `settled + tail` as lines, trailing white space removed as `markdownLines` does. */
function joinTrimmed(settled: readonly string[], tail: string): string[] {
  const tailLines = tail.split('\n');
  const lines = settled.slice(0, -1);
  lines.push(settled[settled.length - 1]! + tailLines[0]!);
  for (let i = 1; i < tailLines.length; i++) lines.push(tailLines[i]!);
  while (lines.length > 1 && /^\s*$/.test(lines[lines.length - 1]!)) lines.pop();
  lines[lines.length - 1] = lines[lines.length - 1]!.replace(/\s+$/, '');
  return lines;
}
