/**
 * Emulator time: an injectable base clock plus an offset that the inspection API can
 * advance. Every state machine, expiry and rate window reads this clock, so a test can
 * jump 25 hours ahead and see a generated URL expire without waiting.
 */
export class EmulatorClock {
  private offsetMs = 0;

  constructor(private readonly base: () => number = Date.now) {}

  now(): number {
    return this.base() + this.offsetMs;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advanceMs must be a finite number >= 0');
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
