/**
 * What replays and floods of one callback URL may cost: a bounded memory of callbacks
 * already relayed (an exact replay is answered 204 without signalling), and a token
 * bucket per (workflowId, step, attempt) that bounds the signals (and the workflow
 * queries before them) one URL can cause. In memory, per receiver process.
 */

export interface GuardLimits {
  /** Relayed callbacks remembered (oldest forgotten first). */
  memory: number;
  /** How long one is remembered. */
  memoryTtlMs: number;
  /** Callbacks one (workflowId, step, attempt) may relay at once... */
  burst: number;
  /** ...and then one per this many ms. */
  refillMs: number;
  /** Buckets kept (least recently used dropped first; a dropped bucket starts full again). */
  buckets: number;
}

/**
 * A genuine step sends a few callbacks (one per state: about 3 to 5), so a burst of 10 never
 * throttles one; a flood gets 10, then one every 5 s.
 */
export const DEFAULT_GUARD_LIMITS: GuardLimits = {
  memory: 10_000,
  memoryTtlMs: 15 * 60_000,
  burst: 10,
  refillMs: 5_000,
  buckets: 10_000,
};

export interface RelayKey {
  workflowId: string;
  step: string;
  attempt: number;
  /** v2 URLs: the pipeline's first run id (one URL, one bucket). */
  run?: string;
}

export type Admission =
  { ok: true } | { ok: false; reason: 'duplicate' } | { ok: false; reason: 'rate'; retryAfterS: number };

interface Bucket {
  tokens: number;
  atMs: number;
  /** Refusals since the last admitted callback (logs name the first, then a count). */
  refused: number;
}

/** Map as an LRU: a touched key moves to the end, the oldest is dropped past `max`. */
function touch<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as string);
}

export class RelayGuard {
  private readonly relayed = new Map<string, number>();
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: GuardLimits = DEFAULT_GUARD_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Decides whether a callback may go on to the workflow. An admitted one is remembered at
   * once (so concurrent replays are duplicates too); `forget` it when relaying failed.
   */
  admit(key: RelayKey, taskId: string | undefined, status: string | undefined): Admission {
    if (this.isReplay(key, taskId, status)) {
      this.bucket(key, this.now()).refused++;
      return { ok: false, reason: 'duplicate' };
    }
    const taken = this.take(key);
    if (taken.ok) this.remember(key, taskId, status);
    return taken;
  }

  /**
   * A token of this URL's bucket, spent before the body is read: the path alone names the
   * URL, so a flood is refused without buffering its bodies (docs/operations.md "Callbacks").
   */
  take(key: RelayKey): { ok: true } | { ok: false; reason: 'rate'; retryAfterS: number } {
    const bucket = this.bucket(key, this.now());
    if (bucket.tokens < 1) {
      bucket.refused++;
      return { ok: false, reason: 'rate', retryAfterS: Math.ceil(((1 - bucket.tokens) * this.limits.refillMs) / 1000) };
    }
    bucket.tokens -= 1;
    bucket.refused = 0;
    return { ok: true };
  }

  /**
   * After the body is read: false for an exact replay of a relayed callback, whose token goes
   * back (a replay costs nothing); otherwise it is remembered as relayed.
   */
  remember(key: RelayKey, taskId: string | undefined, status: string | undefined): boolean {
    if (this.isReplay(key, taskId, status)) {
      const bucket = this.bucket(key, this.now());
      bucket.tokens = Math.min(this.limits.burst, bucket.tokens + 1);
      return false;
    }
    touch(this.relayed, fingerprint(key, taskId, status), this.now() + this.limits.memoryTtlMs, this.limits.memory);
    return true;
  }

  private isReplay(key: RelayKey, taskId: string | undefined, status: string | undefined): boolean {
    const until = this.relayed.get(fingerprint(key, taskId, status));
    return until !== undefined && until > this.now();
  }

  /** Relaying failed: the same callback may be tried again (its token is not returned). */
  forget(key: RelayKey, taskId: string | undefined, status: string | undefined): void {
    this.relayed.delete(fingerprint(key, taskId, status));
  }

  /** Refusals of this key since it last admitted one (1 = this is the first). */
  refusedInARow(key: RelayKey): number {
    return this.buckets.get(bucketKey(key))?.refused ?? 0;
  }

  private bucket(key: RelayKey, now: number): Bucket {
    const k = bucketKey(key);
    const b = this.buckets.get(k) ?? { tokens: this.limits.burst, atMs: now, refused: 0 };
    b.tokens = Math.min(this.limits.burst, b.tokens + (now - b.atMs) / this.limits.refillMs);
    b.atMs = now;
    touch(this.buckets, k, b, this.limits.buckets);
    return b;
  }
}

const bucketKey = (key: RelayKey): string => JSON.stringify([key.workflowId, key.step, key.attempt, key.run ?? null]);
const fingerprint = (key: RelayKey, taskId: string | undefined, status: string | undefined): string =>
  JSON.stringify([key.workflowId, key.step, key.attempt, key.run ?? null, taskId ?? null, status ?? null]);
