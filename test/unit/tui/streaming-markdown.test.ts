import chalk from 'chalk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownLines } from '../../../harness/tui/render/markdown-lines.js';
import { StreamingMarkdown } from '../../../harness/tui/render/streaming-markdown.js';
import { markdownReply, textDeltas } from '../../support/markdown-reply.js';

let level: typeof chalk.level;
beforeEach(() => {
  level = chalk.level;
  chalk.level = 3; // colours on: the comparison covers the escape codes too
});
afterEach(() => {
  chalk.level = level;
});

/** Feeds the deltas one by one and checks every intermediate result against a whole render. */
function expectSameAsWhole(deltas: readonly string[], width: number | ((step: number) => number)): void {
  const streaming = new StreamingMarkdown();
  let text = '';
  deltas.forEach((delta, step) => {
    text += delta;
    const columns = typeof width === 'number' ? width : width(step);
    expect(streaming.lines(text, columns), `after ${JSON.stringify(text.slice(-40))}`).toEqual(
      markdownLines(text, columns),
    );
  });
}

describe('StreamingMarkdown', () => {
  it('renders a growing reply exactly as a whole render would, delta by delta', () => {
    const reply = markdownReply(160);
    expectSameAsWhole(textDeltas(reply, 7), 60);
  });

  it('matches character by character through fences, lists, tables and setext headings', () => {
    const reply = [
      'Intro paragraph with `code` and **bold**.',
      '',
      '```ts',
      'const a = 1;',
      '',
      '',
      'const b = `x`;',
      '```',
      '',
      '- tight',
      '- list',
      '',
      '- now loose',
      '',
      '  continued item',
      '',
      'Heading text',
      '===',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '    indented code',
      '',
      '    more of it',
      '',
      '> quote',
      'lazy line',
      '',
      '~~~',
      'tilde fence never closed',
    ].join('\n');
    expectSameAsWhole([...reply], 50);
  });

  it('stays equal when the width changes while streaming (a resize re-wraps everything)', () => {
    const deltas = textDeltas(markdownReply(120), 3);
    expectSameAsWhole(deltas, (step) => (step < deltas.length / 2 ? 80 : 41));
  });

  it('renders a reply with a link definition whole, and a replaced text from the start', () => {
    const streaming = new StreamingMarkdown();
    const first = 'See [the docs][d].\n\nMore text.\n\n';
    expect(streaming.lines(first, 60)).toEqual(markdownLines(first, 60));
    const defined = `${first}[d]: https://example.com/docs\n`;
    expect(streaming.lines(defined, 60)).toEqual(markdownLines(defined, 60));
    const replaced = 'Another reply altogether.\n\n- item';
    expect(streaming.lines(replaced, 60)).toEqual(markdownLines(replaced, 60));
  });
});
