/** Counters the inspection API reports; one instance per emulator, zeroed by reset(). */
export interface Counters {
  requests: number;
  /** Faults injected, by kind (delayAfterCreate, upstream502, …). */
  faultsInjected: Record<string, number>;
  /** Faults injected, by endpoint key then kind. */
  faultsByEndpoint: Record<string, Record<string, number>>;
  /** 429 answers per endpoint key, natural (GetAsset rate, review query interval) or injected. */
  rateLimited429: Record<string, number>;
  callbacks: {
    /** POSTs attempted (a duplicate counts twice). */
    sent: number;
    /** POSTs answered 2xx. */
    delivered: number;
    /** POSTs answered 2xx within 1 s of being sent (the receiver answers before it judges). */
    deliveredWithin1s: number;
    /** POSTs that failed: non-2xx, refused, timed out. */
    failed: number;
    dropped: number;
    duplicated: number;
    delayed: number;
  };
}

export function newCounters(): Counters {
  return {
    requests: 0,
    faultsInjected: {},
    faultsByEndpoint: {},
    rateLimited429: {},
    callbacks: { sent: 0, delivered: 0, deliveredWithin1s: 0, failed: 0, dropped: 0, duplicated: 0, delayed: 0 },
  };
}

export function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}
