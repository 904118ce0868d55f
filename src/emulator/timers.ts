/**
 * Real-time waits (held responses, delayed callbacks, sync review) tracked per emulator
 * instance, so close() and reset() can cancel them instead of leaving timers behind.
 */
export class RealTimers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();

  /** Resolves after ms, or early (with false) when cancelAll() runs. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const handle = setTimeout(() => {
        this.pending.delete(handle);
        resolve(true);
      }, ms);
      this.pending.set(handle, () => resolve(false));
    });
  }

  cancelAll(): void {
    for (const [handle, wake] of this.pending) {
      clearTimeout(handle);
      wake();
    }
    this.pending.clear();
  }
}
