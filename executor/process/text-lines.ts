/** Lines longer than this are passed on in pieces, so one endless line cannot grow a buffer. */
export const MAX_LINE_CHARS = 8 * 1024;

/**
 * Splits one stream's decoded text into lines (LF or CRLF). Partial lines wait
 * for the rest; a line over `maxLineChars` is cut into pieces as it arrives.
 */
export class TextLines {
  private pending = '';

  constructor(
    private readonly onLine: (text: string) => void,
    private readonly maxLineChars = MAX_LINE_CHARS,
  ) {}

  /**
   * Takes the next text of the stream and reports every line it completes.
   * Returns the text those lines cover, CRLF made LF, for a transcript that
   * interleaves streams a line at a time instead of mid-line.
   */
  push(text: string): string {
    const data = this.pending.length === 0 ? text : this.pending + text;
    let start = 0;
    for (let nl = data.indexOf('\n'); nl !== -1; nl = data.indexOf('\n', start)) {
      const end = nl > start && data.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      this.emit(data.slice(start, end));
      start = nl + 1;
    }
    let done = start;
    while (data.length - done > this.maxLineChars) {
      const cut = safeCut(data, done + this.maxLineChars);
      this.onLine(data.slice(done, cut));
      done = cut;
    }
    this.pending = data.slice(done);
    return done === 0 ? '' : crlfToLf(data.slice(0, done));
  }

  /** Reports the unterminated last line, if any, and returns it. */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    if (rest.length > 0) this.onLine(rest.endsWith('\r') ? rest.slice(0, -1) : rest);
    return crlfToLf(rest);
  }

  private emit(line: string): void {
    if (line.length <= this.maxLineChars) {
      this.onLine(line);
      return;
    }
    for (let at = 0; at < line.length; ) {
      const cut = safeCut(line, at + this.maxLineChars);
      this.onLine(line.slice(at, cut));
      at = cut;
    }
  }
}

/** Moves a cut back by one when it would split a surrogate pair. */
function safeCut(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

function crlfToLf(text: string): string {
  return text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text;
}
