/** A one-line activity indicator; `start` again just changes the label. */
export interface TerminalSpinner {
  start(label: string): void;
  /** Erases the spinner line; safe to call when it is not running. */
  stop(): void;
  readonly running: boolean;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * Draws on its own line with `\r` and erases by overwriting with spaces, so
 * it needs no ANSI escape at all; the caller decides whether to use one
 * (only on a TTY). The timer is unref'd: a spinner never keeps a process alive.
 */
export function createTerminalSpinner(write: (text: string) => void, intervalMs = 80): TerminalSpinner {
  let timer: NodeJS.Timeout | undefined;
  let label = '';
  let frame = 0;
  let drawn = 0;

  const draw = (): void => {
    const text = `${FRAMES[frame % FRAMES.length]} ${label}`;
    frame++;
    // Pad over a longer previous label.
    write(`\r${text.padEnd(drawn)}`);
    drawn = text.length;
  };

  return {
    start(next) {
      label = next;
      if (!timer) {
        timer = setInterval(draw, intervalMs);
        timer.unref();
      }
      draw();
    },
    stop() {
      if (!timer) return;
      clearInterval(timer);
      timer = undefined;
      write(`\r${' '.repeat(drawn)}\r`);
      drawn = 0;
    },
    get running() {
      return timer !== undefined;
    },
  };
}
