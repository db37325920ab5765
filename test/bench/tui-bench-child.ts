/**
 * The terminal UI's bench, run in a process of its own by tui-bench.ts so that
 * its RSS and CPU time are the UI's alone: `node tui-bench-child.js interactive|session`
 * prints one JSON line of figures. Ink draws the real TuiApp into a terminal
 * that swallows output (and keeps what was written, to check the last frame).
 */
import { Readable, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink';
import { createElement } from 'react';
import { conversationRows } from '../../harness/tui/components/screen.js';
import { historyEvents } from '../../harness/tui/history-events.js';
import { BlockLineCache } from '../../harness/tui/render/line-cache.js';
import { markdownLines } from '../../harness/tui/render/markdown-lines.js';
import { createRowDiffOutput } from '../../harness/tui/row-diff-output.js';
import { INK_RENDER_OPTIONS } from '../../harness/tui/run-tui.js';
import { TuiApp } from '../../harness/tui/tui-app.js';
import { TuiController } from '../../harness/tui/tui-controller.js';
import { createUiReducer } from '../../harness/tui/ui-reducer.js';
import { initialUiState, type UiState } from '../../harness/tui/ui-state.js';
import type { Message } from '../../shared/conversation.js';
import { FakeAgentBackend } from '../support/fake-agent-backend.js';
import { markdownReply, textDeltas, wordTokens } from '../support/markdown-reply.js';
import { median, quantile, round } from './stats.js';

const COLUMNS = 120;
const ROWS = 40;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A terminal that swallows output at a fixed size, keeping the text written since `mark()`. */
class NullTerminal extends Writable {
  readonly columns = COLUMNS;
  readonly rows = ROWS;
  readonly isTTY = true;
  private written: string[] = [];
  /** Bytes written, and whole-screen clears (`CSI 2 J`) among them: what flickers. */
  bytes = 0;
  clears = 0;

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    const text = String(chunk);
    this.written.push(text);
    this.bytes += Buffer.byteLength(text);
    for (let at = text.indexOf('\x1b[2J'); at !== -1; at = text.indexOf('\x1b[2J', at + 1)) this.clears++;
    done();
  }

  mark(): void {
    this.written = [];
  }

  /** What was written since the mark, escape codes removed. */
  text(): string {
    return stripVTControlCharacters(this.written.join(''));
  }
}

/** A keyboard the bench types on: bytes pushed here reach the UI as a terminal's keys would, through Ink's input. */
function benchKeyboard(): NodeJS.ReadStream & Readable {
  const stream = new Readable({ read: () => {} }) as unknown as NodeJS.ReadStream & Readable;
  Object.assign(stream, { isTTY: true, setRawMode: () => stream, ref: () => stream, unref: () => stream });
  return stream;
}

/** The line cache, noting which state each frame draws (the screen announces it before drawing). */
class RecordingCache extends BlockLineCache {
  drawn: UiState | undefined;

  override beginFrame(state: UiState): void {
    this.drawn = state;
    super.beginFrame(state);
  }
}

interface Frame {
  at: number;
  /** Sequence number of the state the frame drew (states are numbered as the controller makes them). */
  seq: number;
  state: UiState;
}

interface Mounted {
  controller: TuiController;
  backend: FakeAgentBackend;
  cache: RecordingCache;
  terminal: NullTerminal;
  keyboard: Readable;
  /** Resolves with the number of the state the next key dispatched produces. */
  nextKey(): Promise<number>;
  /** The state the controller has now, numbered. */
  seq(): number;
  frames: number;
  /** Resolves at the first frame that draws state `seq` or a later one. */
  frameShowing(seq: number): Promise<Frame>;
  onFrame?: (frame: Frame) => void;
  unmount(): void;
}

/**
 * Draws the real TuiApp into a NullTerminal through the UI's row-diffing output,
 * or, with `wholeFrames` (the baseline), straight as Ink writes it.
 */
function mount(
  backend: FakeAgentBackend,
  onFrame?: (frame: Frame) => void,
  { wholeFrames = false } = {},
): Mounted {
  const cache = new RecordingCache();
  const controller = new TuiController({
    backend,
    reduce: createUiReducer(cache.metrics(conversationRows)),
    initial: initialUiState({ now: Date.now(), columns: COLUMNS, rows: ROWS, model: backend.model }),
    now: Date.now,
    onExit: () => {},
  });
  const numbers = new WeakMap<UiState, number>();
  let counter = 0;
  numbers.set(controller.current, counter);
  controller.listen((state) => numbers.set(state, ++counter));
  const terminal = new NullTerminal();
  const keyboard = benchKeyboard();
  let keyWaiters: Array<(seq: number) => void> = [];
  const dispatch = controller.dispatch;
  controller.dispatch = (input) => {
    dispatch(input);
    if (input.type !== 'key') return;
    const ready = keyWaiters;
    keyWaiters = [];
    for (const resolve of ready) resolve(counter);
  };
  let waiters: Array<{ seq: number; resolve: (frame: Frame) => void }> = [];
  const mounted: Mounted = {
    controller,
    backend,
    cache,
    terminal,
    keyboard,
    nextKey: () => new Promise((resolve) => keyWaiters.push(resolve)),
    seq: () => counter,
    frames: 0,
    frameShowing: (seq) =>
      new Promise((resolve, reject) => {
        // A frame that never comes is a failure of the bench, not a hang.
        const timer = setTimeout(() => reject(new Error(`no frame drew state ${seq}`)), 10_000);
        waiters.push({
          seq,
          resolve: (frame) => {
            clearTimeout(timer);
            resolve(frame);
          },
        });
      }),
    unmount: () => {
      controller.stop();
      instance.unmount();
    },
    ...(onFrame && { onFrame }),
  };
  const stdout = terminal as unknown as NodeJS.WriteStream;
  const instance = render(createElement(TuiApp, { controller, cache, now: Date.now }), {
    stdout: wholeFrames ? stdout : createRowDiffOutput(stdout).stdout,
    stdin: keyboard,
    patchConsole: false,
    ...INK_RENDER_OPTIONS,
    onRender: () => {
      const state = cache.drawn;
      if (!state) return;
      const frame = { at: performance.now(), seq: numbers.get(state) ?? -1, state };
      mounted.frames++;
      mounted.onFrame?.(frame);
      const ready = waiters.filter((waiter) => frame.seq >= waiter.seq);
      waiters = waiters.filter((waiter) => frame.seq < waiter.seq);
      for (const waiter of ready) waiter.resolve(frame);
    },
  });
  controller.start();
  return mounted;
}

/** A conversation of `calls` tool calls, each after a line of text: 3 events per call. */
function conversation(calls: number): Message[] {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'start' }] }];
  for (let i = 0; i < calls; i++) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Step ${i}: reading \`src/file-${i}.ts\` to check the **exports**.` },
        { type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: `src/file-${i}.ts` } },
      ],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', callId: `t${i}`, output: `1\texport const v${i} = ${i};`, isError: false },
      ],
    });
  }
  return messages;
}

/** Keystroke (alternating k and j in NORMAL mode, typed into the terminal's input) to the first frame that draws it. */
async function keyLatencies(ui: Mounted, keys: number, gapMs: number): Promise<number[]> {
  ui.controller.dispatch({ type: 'key', key: { text: '', name: 'escape' }, now: Date.now() });
  await sleep(50);
  const latencies: number[] = [];
  for (let i = 0; i < keys; i++) {
    const start = performance.now();
    const dispatched = ui.nextKey();
    ui.keyboard.push(i % 2 === 0 ? 'k' : 'j');
    const frame = await ui.frameShowing(await dispatched);
    latencies.push(frame.at - start);
    await sleep(gapMs);
  }
  return latencies;
}

/** Emits `deltas` as text_delta events at `perSecond`, on a 5 ms timer that catches up when it fires late. */
function streamDeltas(
  backend: FakeAgentBackend,
  deltas: readonly string[],
  perSecond: number,
  emittedAt?: Float64Array,
  beforeEmit?: (index: number) => void,
): { done: Promise<void>; stop: () => void } {
  const start = performance.now();
  let sent = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const done = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      const due = Math.min(deltas.length, Math.floor(((performance.now() - start) * perSecond) / 1000));
      const at = performance.now();
      while (sent < due) {
        if (emittedAt) emittedAt[sent] = at;
        beforeEmit?.(sent);
        backend.emit({ type: 'text_delta', text: deltas[sent++]! });
      }
      if (sent === deltas.length) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  return { done, stop: () => clearInterval(timer) };
}

interface StreamFigures {
  deltas_per_s: number;
  frames_per_s: number;
  cpu_core_share: number;
  /** CPU time per frame drawn: less sensitive than wall time to a machine shared with other work. */
  cpu_ms_per_frame: number;
  lag_p50_ms: number;
  lag_p99_ms: number;
  /** Bytes written to the terminal per frame drawn, and whole-screen clears per minute, while streaming. */
  bytes_per_frame: number;
  clears_per_min: number;
  all_shown: boolean;
}

/**
 * A Markdown reply streamed as `seconds × perSecond` deltas of 1–9 characters.
 * Deltas shown per second count from the first delta to the frame that shows
 * the last; lag is each delta's emission to the first frame drawing it. "All
 * shown": the reply drawn equals the deltas joined, its lines (incremental)
 * equal a whole render of that text and hold every word in order, and the last
 * words were written to the terminal after the last delta.
 */
async function streamPhase(perSecond: number, seconds: number, wholeFrames = false): Promise<StreamFigures> {
  const backend = new FakeAgentBackend();
  const ui = mount(backend, undefined, { wholeFrames });
  await sleep(100);
  const count = Math.round(perSecond * seconds);
  const reply = markdownReply(count);
  const deltas = textDeltas(reply, 3).slice(0, count);
  const text = deltas.join('');
  const ends = new Float64Array(deltas.length);
  for (let i = 0, at = 0; i < deltas.length; i++) {
    at += deltas[i]!.length;
    ends[i] = at;
  }
  const emittedAt = new Float64Array(deltas.length);
  const lags: number[] = [];
  let shown = 0;
  let shownAllAt = 0;
  let framesInStream = 0;
  ui.onFrame = (frame) => {
    if (shown === deltas.length) return; // frames after the one that showed the last delta are not counted
    framesInStream++;
    const last = frame.state.blocks.at(-1);
    const length = last?.kind === 'assistant' ? last.text.length : 0;
    while (shown < deltas.length && ends[shown]! <= length && emittedAt[shown]! > 0) {
      lags.push(frame.at - emittedAt[shown]!);
      shown++;
      shownAllAt = frame.at;
    }
  };
  backend.emit({ type: 'turn_start', turn: 1 });
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const bytesStart = ui.terminal.bytes;
  const clearsStart = ui.terminal.clears;
  // The terminal's writes are kept from the delta that starts the last two words: those lines change after it.
  const words = wordTokens(text);
  const lastWordsAt = text.lastIndexOf(words.at(-2) ?? '');
  const stream = streamDeltas(backend, deltas, perSecond, emittedAt, (index) => {
    if (index === 0 || (ends[index - 1]! <= lastWordsAt && ends[index]! > lastWordsAt)) ui.terminal.mark();
  });
  await stream.done;
  // The last deltas wait in the controller's queue for its next flush; states keep coming (the running
  // turn's clock ticks), so wait frame by frame until one shows every delta (or fail after 10 s without one).
  while (shown < deltas.length) await ui.frameShowing(ui.seq() + 1);
  const wallMs = shownAllAt - start;
  const cpu = process.cpuUsage(cpuStart);
  const bytes = ui.terminal.bytes - bytesStart;
  const clears = ui.terminal.clears - clearsStart;
  const block = ui.controller.current.blocks.at(-1);
  const drawnText = block?.kind === 'assistant' ? block.text : '';
  const lines = block ? ui.cache.lines(block, false, COLUMNS) : [];
  const plain = stripVTControlCharacters(lines.join('\n'));
  let at = 0;
  const inOrder = words.every((word) => {
    at = plain.indexOf(word, at);
    return at !== -1;
  });
  const whole = [...markdownLines(drawnText, COLUMNS - 2), ''];
  const onTerminal = words.slice(-2).every((word) => ui.terminal.text().includes(word));
  ui.unmount();
  const checks: Array<[string, boolean]> = [
    ['every delta drawn', shown === deltas.length],
    ['the reply is the deltas joined', drawnText === text],
    ['every word in the lines, in order', inOrder],
    ['the lines equal a whole render', JSON.stringify(lines) === JSON.stringify(whole)],
    ['the last words written to the terminal', onTerminal],
  ];
  for (const [check, ok] of checks)
    if (!ok) process.stderr.write(`tui bench, ${perSecond}/s: failed: ${check}\n`);
  return {
    deltas_per_s: Math.round((shown * 1000) / wallMs),
    frames_per_s: Math.round((framesInStream * 1000) / wallMs),
    cpu_core_share: round((cpu.user + cpu.system) / 1000 / wallMs, 2),
    cpu_ms_per_frame: round((cpu.user + cpu.system) / 1000 / framesInStream, 2),
    lag_p50_ms: round(median(lags), 1),
    lag_p99_ms: round(quantile(lags, 0.99), 1),
    bytes_per_frame: Math.round(bytes / framesInStream),
    clears_per_min: Math.round((clears * 60_000) / wallMs),
    all_shown: checks.every(([, ok]) => ok),
  };
}

async function interactive(): Promise<Record<string, number | boolean>> {
  // Baseline: an empty conversation, nothing streaming.
  const empty = mount(new FakeAgentBackend());
  await sleep(100);
  const idleCpu = process.cpuUsage();
  const idleStart = performance.now();
  const emptyLatencies = await keyLatencies(empty, 80, 20);
  const idleCpuUsed = process.cpuUsage(idleCpu);
  const idleWall = performance.now() - idleStart;
  empty.unmount();

  // 5,000 blocks (2,500 texts + 2,500 tool calls): keys with nothing streaming, then with a reply at 200 deltas/s.
  const loaded = new FakeAgentBackend();
  loaded.conversation = conversation(2_500);
  const ui = mount(loaded);
  await sleep(300);
  const quietCpu = process.cpuUsage();
  const quietLatencies = await keyLatencies(ui, 60, 20);
  const quietCpuUsed = process.cpuUsage(quietCpu);
  loaded.emit({ type: 'turn_start', turn: 1 });
  const stream = streamDeltas(loaded, textDeltas(markdownReply(2_000), 5), 200);
  const streamingLatencies = await keyLatencies(ui, 150, 20);
  stream.stop();
  ui.unmount();

  // The same keys while streaming at 10 and 50,000 blocks: key → frame must stay flat as a session grows.
  const streamingAt = async (calls: number): Promise<number[]> => {
    const backend = new FakeAgentBackend();
    backend.conversation = conversation(calls);
    const mounted = mount(backend);
    await sleep(300);
    backend.emit({ type: 'turn_start', turn: 1 });
    const replying = streamDeltas(backend, textDeltas(markdownReply(2_000), 5), 200);
    const latencies = await keyLatencies(mounted, 150, 20);
    replying.stop();
    mounted.unmount();
    return latencies;
  };
  const at10 = await streamingAt(5);
  const at50k = await streamingAt(25_000);

  const target = await streamPhase(2_000, 3);
  const flatOut = await streamPhase(10_000, 1.5);
  // Baseline for bytes per frame and clears: the same stream as Ink writes it alone (a clear and every row each frame).
  const inkAlone = await streamPhase(2_000, 3, true);
  const figures: Record<string, number | boolean> = {
    tui_key_frame_empty_p50_ms: round(median(emptyLatencies), 2),
    tui_key_frame_empty_p99_ms: round(quantile(emptyLatencies, 0.99), 2),
    tui_key_frame_empty_cpu_core_share: round((idleCpuUsed.user + idleCpuUsed.system) / 1000 / idleWall, 2),
    // CPU time per key (the whole process: Ink's input, reducer, React, Ink's frame), less sensitive to load.
    tui_key_frame_empty_cpu_ms: round(
      (idleCpuUsed.user + idleCpuUsed.system) / 1000 / emptyLatencies.length,
      2,
    ),
    tui_key_frame_5k_cpu_ms: round(
      (quietCpuUsed.user + quietCpuUsed.system) / 1000 / quietLatencies.length,
      2,
    ),
    tui_key_frame_5k_p50_ms: round(median(quietLatencies), 2),
    tui_key_frame_5k_p99_ms: round(quantile(quietLatencies, 0.99), 2),
    tui_key_frame_5k_streaming_p50_ms: round(median(streamingLatencies), 2),
    tui_key_frame_5k_streaming_p99_ms: round(quantile(streamingLatencies, 0.99), 2),
    tui_key_frame_10_streaming_p50_ms: round(median(at10), 2),
    tui_key_frame_10_streaming_p99_ms: round(quantile(at10, 0.99), 2),
    tui_key_frame_50k_streaming_p50_ms: round(median(at50k), 2),
    tui_key_frame_50k_streaming_p99_ms: round(quantile(at50k, 0.99), 2),
  };
  for (const [name, run] of [
    ['2k', target],
    ['10k', flatOut],
    ['2k_ink_whole_frames', inkAlone],
  ] as const) {
    for (const [key, value] of Object.entries(run)) figures[`tui_stream_${name}_${key}`] = value;
  }
  return figures;
}

const mb = (bytes: number): number => round(bytes / 1_048_576, 1);

/** Live memory after a full collection (run with --expose-gc). */
function memory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed };
}

async function session(): Promise<Record<string, number | boolean>> {
  // Baseline: the same process with an empty UI drawn and gone (modules loaded).
  const empty = mount(new FakeAgentBackend());
  await sleep(100);
  empty.unmount();
  await sleep(50);
  const base = memory();

  // 100,000 events: 33,333 × (text, tool start, tool result) and the prompt.
  const big = conversation(33_333);
  const events = historyEvents(big);
  if (events.length < 100_000) throw new Error(`the big conversation has only ${events.length} events`);
  const withConversation = memory();
  const blocksStart = performance.now();
  const reduce = createUiReducer(new BlockLineCache().metrics(conversationRows));
  reduce(initialUiState({ now: 0, columns: COLUMNS, rows: ROWS, model: 'm' }), {
    type: 'events',
    events,
    now: 0,
  });
  const blocksMs = performance.now() - blocksStart;

  const backend = new FakeAgentBackend();
  backend.conversation = big;
  // As a resumed session has them: where each message sits in the log, so blocks know their fork point.
  let parentId: string | null = null;
  for (const [i, message] of big.entries()) {
    const eventId = `e${i}`;
    backend.refs.set(message, { eventId, parentId });
    parentId = eventId;
  }
  let firstFrameAt = 0;
  const firstStart = performance.now();
  const ui = mount(backend, (frame) => {
    if (firstFrameAt === 0 && frame.state.blocks.length > 0) firstFrameAt = frame.at;
  });
  while (firstFrameAt === 0) await sleep(5);
  const firstFrameMs = firstFrameAt - firstStart;
  // Scroll to the top and back: every block laid out, the ones on screen drawn.
  ui.controller.dispatch({ type: 'key', key: { text: '', name: 'escape' }, now: Date.now() });
  ui.controller.dispatch({ type: 'key', key: { text: 'g' }, now: Date.now() });
  await ui.frameShowing(ui.seq());
  ui.controller.dispatch({ type: 'key', key: { text: 'G' }, now: Date.now() });
  await ui.frameShowing(ui.seq());
  const loaded = memory();
  const blocks = ui.controller.current.blocks.length;
  ui.unmount();
  return {
    tui_first_frame_100k_ms: Math.round(firstFrameMs),
    tui_blocks_100k_ms: Math.round(blocksMs),
    tui_blocks_100k: blocks,
    tui_rss_empty_mb: mb(base.rss),
    tui_heap_empty_mb: mb(base.heap),
    tui_heap_conversation_100k_mb: mb(withConversation.heap - base.heap),
    tui_rss_100k_mb: mb(loaded.rss),
    tui_heap_100k_mb: mb(loaded.heap),
  };
}

const part = process.argv[2];
const figures = part === 'session' ? await session() : await interactive();
process.stdout.write(`${JSON.stringify(figures)}\n`);
process.exit(0);
