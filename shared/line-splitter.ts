/**
 * Splits a byte stream into newline-terminated frames without copying more than
 * needed, and refuses frames over a size limit instead of buffering them:
 * an oversized frame is skipped up to its newline and reported once.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private skipping = false;
  private head = '';

  constructor(
    private maxBytes: number,
    private readonly onLine: (line: string) => void,
    /** Called once per oversized frame with its size and its first bytes (to recover a request id). */
    private readonly onOversized: (bytes: number, head: string) => void,
  ) {}

  /** Changes the frame limit, e.g. once a peer has said what it will accept. */
  setLimit(maxBytes: number): void {
    this.maxBytes = maxBytes;
  }

  /**
   * Takes the next bytes of the stream. `transient`: the caller reuses `chunk`'s memory once this
   * returns (a socket reading into one static buffer), so an unfinished frame's bytes are copied.
   */
  push(chunk: Buffer, transient = false): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, nl), true);
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.take(transient ? Buffer.from(rest) : rest, false);
    }
  }

  private take(piece: Buffer, complete: boolean): void {
    if (this.skipping) {
      this.partBytes += piece.length;
    } else if (this.partBytes + piece.length > this.maxBytes) {
      this.skipping = true;
      this.partBytes += piece.length;
      this.head = Buffer.concat([...this.parts, piece.subarray(0, 256)])
        .subarray(0, 256)
        .toString('utf8');
      this.parts = [];
    } else if (piece.length > 0) {
      this.parts.push(piece);
      this.partBytes += piece.length;
    }
    if (!complete) return;
    if (this.skipping) {
      this.onOversized(this.partBytes, this.head);
    } else if (this.partBytes > 0) {
      const line =
        this.parts.length === 1
          ? this.parts[0]!.toString('utf8')
          : Buffer.concat(this.parts).toString('utf8');
      this.onLine(line);
    }
    this.parts = [];
    this.partBytes = 0;
    this.skipping = false;
    this.head = '';
  }
}
