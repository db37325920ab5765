/** The UI's timers (one-shot wakes and one repeating tick), all cleared at once when it stops. */
export class UiTimers {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private ticker: ReturnType<typeof setInterval> | undefined;

  later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  /** Calls `tick` every `ms` while `on`; turning it on again while it runs changes nothing. */
  setTicker(on: boolean, ms: number, tick: () => void): void {
    if (on && !this.ticker) {
      this.ticker = setInterval(tick, ms);
    } else if (!on && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  clear(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
  }
}
