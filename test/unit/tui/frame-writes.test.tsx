import { Readable, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { render } from 'ink';
import { describe, expect, it } from 'vitest';
import { conversationRows } from '../../../harness/tui/components/screen.js';
import { BlockLineCache } from '../../../harness/tui/render/line-cache.js';
import { INK_RENDER_OPTIONS } from '../../../harness/tui/run-tui.js';
import { TuiApp } from '../../../harness/tui/tui-app.js';
import { TuiController } from '../../../harness/tui/tui-controller.js';
import { createUiReducer } from '../../../harness/tui/ui-reducer.js';
import { initialUiState } from '../../../harness/tui/ui-state.js';
import { FakeAgentBackend } from '../../support/fake-agent-backend.js';

/** A terminal of a fixed size that keeps every write. */
class RecordingTerminal extends Writable {
  readonly columns = 100;
  readonly rows = 24;
  readonly isTTY = true;
  readonly writes: string[] = [];
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.writes.push(String(chunk));
    done();
  }
}

const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('what a streaming reply writes to the terminal (#24 flicker)', () => {
  it('no frame clears the whole screen: only changed rows are written, each frame synchronized', async () => {
    const terminal = new RecordingTerminal();
    const keyboard = new Readable({ read: () => {} }) as unknown as NodeJS.ReadStream & Readable;
    Object.assign(keyboard, {
      isTTY: true,
      setRawMode: () => keyboard,
      ref: () => keyboard,
      unref: () => keyboard,
    });
    const backend = new FakeAgentBackend();
    const cache = new BlockLineCache();
    const controller = new TuiController({
      backend,
      reduce: createUiReducer(cache.metrics(conversationRows)),
      initial: initialUiState({ now: Date.now(), columns: 100, rows: 24, model: backend.model }),
      now: Date.now,
      onExit: () => {},
    });
    const instance = render(<TuiApp controller={controller} cache={cache} now={Date.now} />, {
      stdout: terminal as unknown as NodeJS.WriteStream,
      stdin: keyboard,
      patchConsole: false,
      ...INK_RENDER_OPTIONS,
    });
    controller.start();
    await tick(50);
    backend.emit({ type: 'turn_start', turn: 1 });
    await tick(50);
    const first = terminal.writes.length;
    for (let i = 0; i < 30; i++) {
      backend.emit({ type: 'text_delta', text: `word${i} ` });
      await tick(25);
    }
    await tick(150);
    const streamed = terminal.writes.slice(first).join('');
    controller.stop();
    instance.unmount();
    expect(stripVTControlCharacters(streamed)).toContain('word29');
    // A full-height frame makes Ink write clearTerminal (CSI 2 J) and every row, every frame.
    expect(streamed).not.toContain('\x1b[2J');
    // Each frame is a few changed rows, far less than a whole 100 × 24 screen.
    const frames = streamed.split('\x1b[?2026h').filter((part) => part !== '');
    expect(frames.length).toBeGreaterThan(5);
    const perFrame = streamed.length / frames.length;
    expect(perFrame).toBeLessThan(100 * 24);
  });
});
