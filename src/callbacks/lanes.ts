/**
 * A bound on the receiver's calls to Temporal: at most `inFlight` callbacks are being judged
 * and signalled at once, up to `queued` more wait their turn, and past that a callback is
 * refused at once (the vendor may retry) rather than held in memory without end.
 */
export class Lanes {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly inFlight: number,
    readonly queued: number,
  ) {}

  /** Runs `job` in its turn; undefined when every lane and every waiting place is taken. */
  take<T>(job: () => Promise<T>): Promise<T> | undefined {
    if (this.running >= this.inFlight && this.waiting.length >= this.queued) return undefined;
    return this.turn()
      .then(job)
      .finally(() => this.release());
  }

  private turn(): Promise<void> {
    if (this.running < this.inFlight) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.running++;
        resolve();
      }),
    );
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }
}
