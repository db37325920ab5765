import chalk from 'chalk';
import { Marked, type Tokens } from 'marked';
import { markedTerminal } from 'marked-terminal';

/** One Marked instance per width: marked-terminal reflows paragraphs to the width it was made with. */
const byWidth = new Map<number, Marked>();

/** The Marked instance that renders Markdown for a text `width` columns wide. */
export function markedFor(width: number): Marked {
  const columns = Math.max(20, width);
  let marked = byWidth.get(columns);
  if (!marked) {
    // marked-terminal's types lag behind marked's major version; its renderer object is what `use` takes.
    const extension = markedTerminal({
      width: columns,
      reflowText: true,
      tab: 2,
      showSectionPrefix: false,
    }) as unknown as { renderer: Record<string, unknown> };
    extension.renderer.link = plainLink;
    marked = new Marked(extension as never);
    byWidth.set(columns, marked);
  }
  return marked;
}

/**
 * A link as marked-terminal draws it on a terminal without hyperlinks, `text (url)` in its colours,
 * on every terminal: its OSC 8 hyperlink would show the model's text and hide where it leads (and
 * the UI's last step lets no sequence but colours through).
 */
function plainLink(
  this: { parser: { parseInline(tokens: Tokens.Link['tokens']): string } },
  token: Tokens.Link,
): string {
  const text = this.parser.parseInline(token.tokens);
  const href = chalk.blue.underline(token.href);
  return chalk.blue(text && text !== token.href ? `${text} (${href})` : href);
}

/**
 * The model's Markdown as terminal lines (headings, lists, inline code, code
 * blocks coloured by cli-highlight through marked-terminal), without the blank
 * lines marked-terminal leaves at the end.
 */
export function markdownLines(text: string, width: number): string[] {
  let rendered: string;
  try {
    rendered = markedFor(width).parse(text, { async: false }) as string;
  } catch {
    // Half-streamed Markdown that trips the renderer is shown as it came.
    rendered = text;
  }
  return rendered.replace(/\s+$/, '').split('\n');
}
