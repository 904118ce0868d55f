/**
 * Spaces this process's GetAsset calls, per credential profile, so that the vendor never
 * sees more than its limit in any 1-s window (sliding, per access token).
 *
 * Why not the Temporal server's task-queue limit alone: its limiter is a token bucket
 * whose burst is a full second of the rate (classic matcher: burst = max(ceil(rate),
 * matching.minTaskThrottlingBurstSize); new matcher: a fixed 1-s burst; neither can be
 * set lower). After a quiet spell it hands out `rate` tasks at once and `rate` more in the
 * same second, so up to 2 × rate per window before any worker lag. The server limit stays
 * (it caps the total across processes and keeps the backlog in the server's queue); this
 * gate, the last step before the HTTP call, makes the spacing exact.
 *
 * Across processes: each process takes an equal share. The number of processes is read
 * from the server (DescribeTaskQueue: distinct poller identities on the profile's GetAsset
 * queue seen recently, plus this one), refreshed every second. A dead process still
 * counts until its poller ages out: slower, never faster. A process that has just joined
 * is seen by the others at their next refresh, so it sends nothing before then: until that
 * hold, the others would still take the whole rate (seen live: two workers started together,
 * each alone by its first count, put 12 GetAsset in one vendor second).
 */
import { performance } from 'node:perf_hooks';

export interface PollerSeen {
  identity: string;
  /** Server time of the poller's last poll (start or end of a long poll), ms. */
  lastAccessMs: number;
}

/**
 * A live worker's idle long poll lasts up to about 70 s (server 60 s, client 70 s), and
 * the server stamps a poller at both ends of it: newer than this means alive.
 */
export const POLLER_LIVE_MS = 75_000;
export const POLLER_REFRESH_MS = 1_000;
/** A joining process waits the others' refresh plus this before its first call (their poll and RPC time). */
export const JOIN_MARGIN_MS = 500;

/** Distinct poller identities seen within `liveMs` of the newest one, with `self` always counted. */
export function livePollers(seen: readonly PollerSeen[], self: string, liveMs = POLLER_LIVE_MS): number {
  // Relative to the newest poll, not to this machine's clock: no clock skew with the server.
  const newest = Math.max(-Infinity, ...seen.map((p) => p.lastAccessMs));
  const live = new Set(seen.filter((p) => p.lastAccessMs >= newest - liveMs).map((p) => p.identity));
  live.add(self);
  return live.size;
}

/** One call at a time, each at least `intervalMs()` after the previous one really went. */
export class IntervalGate {
  private last = -Infinity;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly now: () => number = () => performance.now()) {}

  turn(intervalMs: () => number): Promise<void> {
    const mine = this.tail.then(async () => {
      // Measured when released, not reserved ahead: a late timer cannot bunch calls.
      for (;;) {
        const wait = this.last + intervalMs() - this.now();
        if (wait <= 0) break;
        await new Promise((r) => setTimeout(r, Math.ceil(wait)));
      }
      this.last = this.now();
    });
    this.tail = mine;
    return mine;
  }
}

export interface GetAssetPacerOptions {
  /** Per profile, all processes together (REELFLOW_GETASSET_RATE). */
  ratePerSecond: number;
  /** This process's poller identity on the GetAsset queues. */
  identity: string;
  /** The pollers the server has seen on a profile's GetAsset queue. */
  describe(profile: string): Promise<PollerSeen[]>;
  refreshMs?: number;
  log?: (line: string) => void;
}

export class GetAssetPacer {
  private readonly gates = new Map<string, IntervalGate>();
  private readonly processes = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  /** performance.now() before which this process sends no GetAsset (see the header). */
  private joinedAt = -Infinity;

  constructor(private readonly opts: GetAssetPacerOptions) {}

  /** Minimum spacing of this process's GetAsset calls for a profile. */
  intervalMs(profile: string): number {
    return (1000 * (this.processes.get(profile) ?? 1)) / this.opts.ratePerSecond;
  }

  /** Re-reads how many processes serve each profile; keeps the last count when the server does not answer. */
  async refresh(profiles: readonly string[]): Promise<void> {
    await Promise.all(
      profiles.map(async (profile) => {
        try {
          const n = livePollers(await this.opts.describe(profile), this.opts.identity);
          if (n !== this.processes.get(profile)) {
            this.opts.log?.(
              `getAsset ${profile}: ${n} worker process(es) share ${this.opts.ratePerSecond}/s, ` +
                `this one spaces its calls ${Math.round((1000 * n) / this.opts.ratePerSecond)} ms apart`,
            );
          }
          this.processes.set(profile, n);
        } catch {
          // Server unreachable (restarting): the last count stands.
        }
      }),
    );
  }

  /** Starts refreshing; this process's first call waits until every other one has counted it. */
  start(profiles: readonly string[]): void {
    const every = this.opts.refreshMs ?? POLLER_REFRESH_MS;
    this.joinedAt = performance.now() + every + JOIN_MARGIN_MS;
    this.timer ??= setInterval(() => void this.refresh(profiles), every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** `getAsset` that waits for its profile's gate first. */
  wrap<I extends { profile?: string }, R>(getAsset: (input: I) => Promise<R>): (input: I) => Promise<R> {
    return async (input: I) => {
      const profile = input?.profile ?? '';
      let gate = this.gates.get(profile);
      if (!gate) this.gates.set(profile, (gate = new IntervalGate()));
      const hold = this.joinedAt - performance.now();
      if (hold > 0) await new Promise((r) => setTimeout(r, Math.ceil(hold)));
      await gate.turn(() => this.intervalMs(profile));
      return getAsset(input);
    };
  }
}
