import { Readable, Writable } from 'node:stream';
import { render } from 'ink';
import { createElement } from 'react';
import { conversationRows } from '../../harness/tui/components/screen.js';
import { historyEvents } from '../../harness/tui/history-events.js';
import { BlockLineCache } from '../../harness/tui/render/line-cache.js';
import { TuiApp } from '../../harness/tui/tui-app.js';
import { TuiController } from '../../harness/tui/tui-controller.js';
import { createUiReducer } from '../../harness/tui/ui-reducer.js';
import { initialUiState } from '../../harness/tui/ui-state.js';
import type { Message } from '../../shared/conversation.js';
import { FakeAgentBackend } from '../support/fake-agent-backend.js';
import { median, quantile, round } from './stats.js';

const COLUMNS = 120;
const ROWS = 40;

export interface TuiFigures {
  /** Keystroke (j/k) to the frame that shows it, 5,000 blocks loaded, text streaming at 200 deltas/s. */
  tui_key_frame_5k_p50_ms: number;
  tui_key_frame_5k_p99_ms: number;
  /** Baseline: the same keys on an empty conversation with nothing streaming. */
  tui_key_frame_empty_p50_ms: number;
  tui_key_frame_empty_p99_ms: number;
  /** Text deltas offered at 2,000/s for 3 s: how many per second were applied, and frames per second drawn. */
  tui_deltas_per_s: number;
  tui_frames_per_s: number;
  /** Every delta's text reached the screen's state (none dropped). */
  tui_deltas_all_shown: boolean;
  /** CPU of the UI process over that stream, as a share of one core. */
  tui_stream_cpu_core_share: number;
  /** A 100,000-event conversation (33,333 texts, tool calls and results) to the first frame showing it. */
  tui_first_frame_100k_ms: number;
  /** Baseline: turning the same conversation into blocks, without drawing. */
  tui_blocks_100k_ms: number;
  /** RSS of this process with that conversation on screen. */
  tui_rss_100k_mb: number;
}

/** A terminal that swallows output: Ink draws into it at a fixed size. */
function nullTerminal(): NodeJS.WriteStream {
  const stream = new Writable({
    write: (_chunk, _encoding, done) => done(),
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { columns: COLUMNS, rows: ROWS, isTTY: true });
  return stream;
}

/** A keyboard that never types: Ink's input hook needs a TTY stdin with raw mode (keys are dispatched directly). */
function quietKeyboard(): NodeJS.ReadStream {
  const stream = new Readable({ read: () => {} }) as unknown as NodeJS.ReadStream;
  Object.assign(stream, { isTTY: true, setRawMode: () => stream, ref: () => stream, unref: () => stream });
  return stream;
}

interface Mounted {
  controller: TuiController;
  backend: FakeAgentBackend;
  /** Resolves at the next frame Ink draws. */
  nextFrame(): Promise<number>;
  unmount(): void;
}

function mount(backend: FakeAgentBackend, onFirstFrame?: () => void): Mounted {
  const cache = new BlockLineCache();
  const controller = new TuiController({
    backend,
    reduce: createUiReducer(cache.metrics(conversationRows)),
    initial: initialUiState({ now: Date.now(), columns: COLUMNS, rows: ROWS, model: backend.model }),
    now: Date.now,
    onExit: () => {},
  });
  let waiters: Array<(at: number) => void> = [];
  let first = true;
  const instance = render(createElement(TuiApp, { controller, cache, now: Date.now }), {
    stdout: nullTerminal(),
    stdin: quietKeyboard(),
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 60,
    incrementalRendering: true,
    onRender: () => {
      const at = performance.now();
      if (first && controller.current.blocks.length > 0) {
        first = false;
        onFirstFrame?.();
      }
      const ready = waiters;
      waiters = [];
      for (const resolve of ready) resolve(at);
    },
  });
  controller.start();
  return {
    controller,
    backend,
    nextFrame: () => new Promise((resolve) => waiters.push(resolve)),
    unmount: () => {
      controller.stop();
      instance.unmount();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** Keystroke → frame latencies for `keys` presses of j/k, `gapMs` apart. */
async function keyLatencies(ui: Mounted, keys: number, gapMs: number): Promise<number[]> {
  ui.controller.dispatch({ type: 'key', key: { text: '', name: 'escape' }, now: Date.now() });
  await sleep(50);
  const latencies: number[] = [];
  for (let i = 0; i < keys; i++) {
    const frame = ui.nextFrame();
    const start = performance.now();
    ui.controller.dispatch({ type: 'key', key: { text: i % 2 === 0 ? 'k' : 'j' }, now: Date.now() });
    latencies.push((await frame) - start);
    await sleep(gapMs);
  }
  return latencies;
}

export async function benchTui(): Promise<TuiFigures> {
  // Baseline: an empty conversation, nothing streaming.
  const empty = mount(new FakeAgentBackend());
  await sleep(100);
  const emptyLatencies = await keyLatencies(empty, 100, 20);
  empty.unmount();

  // 5,000 blocks (2,500 texts + 2,500 tool calls) and a reply streaming at 200 deltas/s.
  const loaded = new FakeAgentBackend();
  loaded.conversation = conversation(2_500);
  const ui = mount(loaded);
  await sleep(300);
  loaded.emit({ type: 'turn_start', turn: 1 });
  const streamer = setInterval(() => loaded.emit({ type: 'text_delta', text: 'word ' }), 5);
  const loadedLatencies = await keyLatencies(ui, 200, 20);
  clearInterval(streamer);
  ui.unmount();

  // Streaming throughput: 2,000 deltas/s offered for 3 s (20 every 10 ms).
  const streamBackend = new FakeAgentBackend();
  const stream = mount(streamBackend);
  await sleep(100);
  let frames = 0;
  const countFrames = async (): Promise<void> => {
    for (;;) {
      await stream.nextFrame();
      frames++;
    }
  };
  void countFrames();
  streamBackend.emit({ type: 'turn_start', turn: 1 });
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      for (let i = 0; i < 20; i++) streamBackend.emit({ type: 'text_delta', text: `d${sent++} ` });
      if (sent >= 6_000) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
  await sleep(100);
  const wallMs = performance.now() - wallStart;
  const cpu = process.cpuUsage(cpuStart);
  const last = stream.controller.current.blocks.at(-1);
  const shownText = last?.kind === 'assistant' ? last.text : '';
  const allShown = shownText.split(' ').filter((word) => word !== '').length === sent;
  stream.unmount();

  // 100,000 events: 33,333 × (text, tool start, tool result) and the prompt, to the first frame.
  const big = conversation(33_333);
  const eventsCount = historyEvents(big).length;
  const baselineStart = performance.now();
  const reduce = createUiReducer(new BlockLineCache().metrics(conversationRows));
  reduce(initialUiState({ now: 0, columns: COLUMNS, rows: ROWS, model: 'm' }), {
    type: 'events',
    events: historyEvents(big),
    now: 0,
  });
  const blocksMs = performance.now() - baselineStart;
  const bigBackend = new FakeAgentBackend();
  bigBackend.conversation = big;
  const firstStart = performance.now();
  let firstFrameMs = Number.NaN;
  let shownFirst: () => void = () => {};
  const shown = new Promise<void>((resolve) => {
    shownFirst = resolve;
  });
  const bigUi = mount(bigBackend, () => {
    firstFrameMs = performance.now() - firstStart;
    shownFirst();
  });
  await shown;
  const rssMb = process.memoryUsage().rss / 1_048_576;
  bigUi.unmount();
  if (eventsCount < 100_000) throw new Error(`the big conversation has only ${eventsCount} events`);

  return {
    tui_key_frame_5k_p50_ms: round(median(loadedLatencies), 2),
    tui_key_frame_5k_p99_ms: round(quantile(loadedLatencies, 0.99), 2),
    tui_key_frame_empty_p50_ms: round(median(emptyLatencies), 2),
    tui_key_frame_empty_p99_ms: round(quantile(emptyLatencies, 0.99), 2),
    tui_deltas_per_s: Math.round((sent * 1000) / wallMs),
    tui_frames_per_s: Math.round((frames * 1000) / wallMs),
    tui_deltas_all_shown: allShown,
    tui_stream_cpu_core_share: round((cpu.user + cpu.system) / 1000 / wallMs, 2),
    tui_first_frame_100k_ms: Math.round(firstFrameMs),
    tui_blocks_100k_ms: Math.round(blocksMs),
    tui_rss_100k_mb: Math.round(rssMb),
  };
}
