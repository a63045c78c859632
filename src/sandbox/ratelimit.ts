/** Fixed 60-second windows per key, timed by the sandbox clock (so the clock hook resets them too). */
export const WINDOW_MS = 60_000;

export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(readonly perMinute: number) {}

  /** `undefined` when allowed, else the whole seconds until the window resets (at least 1). */
  take(key: string, now: number): number | undefined {
    if (this.perMinute <= 0) return undefined;
    let w = this.windows.get(key);
    if (!w || now >= w.start + WINDOW_MS) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= this.perMinute) return Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    w.count += 1;
    return undefined;
  }

  clear(): void {
    this.windows.clear();
  }
}
