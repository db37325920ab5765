/**
 * Ink's text caches over a long session, in a process of its own so RSS is its own:
 * `node --expose-gc tui-memory-bench-child.js bundle|ink` draws 10,000 "turns" of a 40-row
 * screen whose last rows change on every frame (a reply streaming, a clock ticking), with Ink
 * as the skate bundle ships it (dist/cli/tui-vendor.mjs: bounded caches) or Ink from
 * node_modules (its own caches, which keep every text), and prints one JSON line of figures.
 */
import { Writable } from 'node:stream';
import { distPath } from '../../harness/project-paths.js';
import { round } from './stats.js';

const TURNS = 10_000;
const FRAMES_PER_TURN = 1;
const ROWS = 40;
const COLUMNS = 120;

interface InkLike {
  render: (tree: unknown, options: object) => { rerender(tree: unknown): void; unmount(): void };
  Box: unknown;
  Text: unknown;
}
interface ReactLike {
  createElement: (type: unknown, props: object | null, ...children: unknown[]) => unknown;
}

async function load(which: string): Promise<{ ink: InkLike; react: ReactLike }> {
  if (which === 'bundle') {
    const vendor = (await import(distPath('cli', 'tui-vendor.mjs'))) as { ink: InkLike; react: ReactLike };
    return vendor;
  }
  return { ink: (await import('ink')) as unknown as InkLike, react: (await import('react')) as ReactLike };
}

class NullTerminal extends Writable {
  readonly columns = COLUMNS;
  readonly rows = ROWS + 1;
  readonly isTTY = true;
  override _write(_chunk: unknown, _encoding: BufferEncoding, done: () => void): void {
    done();
  }
}

const mb = (bytes: number): number => round(bytes / 1_048_576, 1);
function memory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

const which = process.argv[2] === 'ink' ? 'ink' : 'bundle';
const { ink, react } = await load(which);
const h = react.createElement;
const screen = (turn: number, frame: number): unknown =>
  h(
    ink.Box,
    { flexDirection: 'column', width: COLUMNS, height: ROWS },
    ...Array.from({ length: ROWS }, (_, row) => {
      // The rows above were drawn before (scrollback of the turn); the last three are new each frame.
      const text =
        row < ROWS - 3
          ? `turn ${turn - (ROWS - row)} · a line of an earlier reply, the same each frame it is shown`
          : `turn ${turn} frame ${frame} row ${row}: the reply as it streams, ${'word '.repeat(12)}`;
      return h(ink.Text, { key: String(row), wrap: 'truncate-end' }, text);
    }),
  );
const instance = ink.render(screen(0, 0), {
  stdout: new NullTerminal(),
  stdin: process.stdin,
  patchConsole: false,
  exitOnCtrlC: false,
  debug: false,
});
await new Promise((resolve) => setTimeout(resolve, 50));
const start = memory();
const started = performance.now();
let after1k = start;
for (let turn = 1; turn <= TURNS; turn++) {
  for (let frame = 0; frame < FRAMES_PER_TURN; frame++) instance.rerender(screen(turn, frame));
  if (turn === 1_000) after1k = memory();
  // Let Ink's throttled writes and React's scheduler run, as between frames of a real session.
  if (turn % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
}
const ms = performance.now() - started;
const end = memory();
instance.unmount();
const prefix = `tui_long_session_${which}`;
process.stdout.write(
  `${JSON.stringify({
    [`${prefix}_rss_start_mb`]: mb(start.rss),
    [`${prefix}_heap_after_1k_turns_mb`]: mb(after1k.heap),
    [`${prefix}_heap_after_10k_turns_mb`]: mb(end.heap),
    [`${prefix}_rss_after_10k_turns_mb`]: mb(end.rss),
    [`${prefix}_ms_per_frame`]: round(ms / (TURNS * FRAMES_PER_TURN), 3),
  })}\n`,
);
process.exit(0);
