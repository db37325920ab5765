/** Bytes set aside for the notice that marks a cut. */
const NOTICE_RESERVE = 120;
/**
 * Share of the budget kept from the start. Less than half: the end of a
 * command's output (the failure, the summary) is usually what matters most.
 */
const HEAD_SHARE = 0.4;
/** A line piece this short next to the cut is dropped with the middle; a longer one is kept. */
const LINE_PIECE_CHARS = 1024;

/**
 * A transcript that keeps the first and the last bytes within a fixed budget
 * and drops the middle, so memory stays O(budget) however much is appended.
 */
export class BoundedOutput {
  private readonly headCap: number;
  private readonly tailCap: number;
  private readonly head: string[] = [];
  private headBytes = 0;
  /** A queue: pieces before `tailStart` have been dropped. */
  private tail: string[] = [];
  private tailStart = 0;
  private tailBytes = 0;
  private droppedBytes = 0;
  /** Whether the cut fell on a line boundary, so the kept tail starts with a whole line. */
  private droppedEndsLine = true;

  /** `capBytes` bounds the whole rendered text, notice included. */
  constructor(capBytes: number) {
    const body = Math.max(0, capBytes - NOTICE_RESERVE);
    this.headCap = Math.floor(body * HEAD_SHARE);
    this.tailCap = body - this.headCap;
  }

  get truncated(): boolean {
    return this.droppedBytes > 0;
  }

  append(text: string): void {
    if (text.length === 0) return;
    let bytes = Buffer.byteLength(text);
    if (this.headBytes < this.headCap && this.tailStart === this.tail.length) {
      const room = this.headCap - this.headBytes;
      if (bytes <= room) {
        this.head.push(text);
        this.headBytes += bytes;
        return;
      }
      const first = takeBytes(text, room);
      this.head.push(first);
      const firstBytes = Buffer.byteLength(first);
      // Nothing more goes to the head once it is cut, even if a character did not fit.
      this.headBytes = this.headCap;
      text = text.slice(first.length);
      bytes -= firstBytes;
    }
    this.tail.push(text);
    this.tailBytes += bytes;
    if (this.tailBytes > this.tailCap) this.trimTail();
  }

  /**
   * The kept text, with a notice where the middle was dropped. Line pieces
   * next to the cut are dropped too (when short), so the notice sits between
   * whole lines.
   */
  render(): string {
    let tail = this.tail.slice(this.tailStart).join('');
    let head = this.head.join('');
    if (this.droppedBytes === 0) return head + tail;
    let dropped = this.droppedBytes;
    if (!this.droppedEndsLine) {
      const nl = tail.indexOf('\n');
      if (nl !== -1 && nl < LINE_PIECE_CHARS && nl < tail.length - 1) {
        dropped += Buffer.byteLength(tail.slice(0, nl + 1));
        tail = tail.slice(nl + 1);
      }
    }
    const nl = head.lastIndexOf('\n');
    if (nl !== -1 && head.length - nl - 1 < LINE_PIECE_CHARS) {
      dropped += Buffer.byteLength(head.slice(nl + 1));
      head = head.slice(0, nl + 1);
    }
    const gap = head.endsWith('\n') || head.length === 0 ? '' : '\n';
    return `${head}${gap}[... ${dropped} bytes of output dropped here ...]\n${tail}`;
  }

  private trimTail(): void {
    while (this.tailBytes > this.tailCap) {
      const piece = this.tail[this.tailStart]!;
      const bytes = Buffer.byteLength(piece);
      const excess = this.tailBytes - this.tailCap;
      if (bytes <= excess) {
        this.tailStart++;
        this.tailBytes -= bytes;
        this.droppedBytes += bytes;
        this.droppedEndsLine = piece.endsWith('\n');
        continue;
      }
      const dropped = takeBytes(piece, excess, true);
      this.droppedEndsLine = dropped.endsWith('\n');
      const droppedBytes = Buffer.byteLength(dropped);
      this.tail[this.tailStart] = piece.slice(dropped.length);
      this.tailBytes -= droppedBytes;
      this.droppedBytes += droppedBytes;
    }
    // Compact now and then so the queue does not keep dropped pieces alive.
    if (this.tailStart > 1024 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailStart = 0;
    }
  }
}

/**
 * The longest prefix of `text` within `limit` bytes of UTF-8, never splitting
 * a character; with `atLeast`, the shortest prefix of at least `limit` bytes.
 */
function takeBytes(text: string, limit: number, atLeast = false): string {
  // Fast path: ASCII text has one byte per character.
  if (Buffer.byteLength(text) === text.length) return text.slice(0, limit);
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    const width = code >= 0x10000 ? 2 : 1;
    if (!atLeast && bytes + size > limit) break;
    bytes += size;
    i += width;
    if (atLeast && bytes >= limit) break;
  }
  return text.slice(0, i);
}
