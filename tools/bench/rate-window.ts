/**
 * How close reelflow came to the vendor's GetAsset limit (pure): the busiest 1-s window
 * of calls as the emulator received them, per access token, and the 429s the vendor gave
 * by itself (natural) rather than by an injected fault.
 */
import type { Counters } from '../../src/emulator/counters';
import type { RequestRecord } from '../../src/emulator/request-log';

export interface BusiestWindow {
  /** Most calls in one window. */
  count: number;
  /** Arrival time (ms) of the window's first call; NaN when there were none. */
  startMs: number;
}

/**
 * The most timestamps in any window of `windowMs`, sliding, counted as the emulator's
 * limiter does: a call at t sees the calls in (t − windowMs, t], so two calls exactly
 * `windowMs` apart never share a window. `timesMs` in any order.
 */
export function busiestWindow(timesMs: readonly number[], windowMs = 1000): BusiestWindow {
  const t = [...timesMs].sort((a, b) => a - b);
  let best: BusiestWindow = { count: 0, startMs: NaN };
  for (let i = 0, j = 0; j < t.length; j++) {
    while (t[j] - t[i] >= windowMs) i++;
    if (j - i + 1 > best.count) best = { count: j - i + 1, startMs: t[i] };
  }
  return best;
}

/** Collects one endpoint's arrival times per caller from request-log records. */
export class WindowCollector {
  private readonly times = new Map<string, number[]>();

  constructor(readonly endpoint = 'assets.GetAsset') {}

  add(r: Pick<RequestRecord, 'endpoint' | 'at' | 'principal'>): void {
    if (r.endpoint !== this.endpoint) return;
    const key = r.principal ?? 'unknown caller';
    const list = this.times.get(key) ?? [];
    list.push(Date.parse(r.at));
    this.times.set(key, list);
  }

  /** Busiest window per caller (an access-token label, never the token). */
  byCaller(windowMs = 1000): Record<string, BusiestWindow> {
    return Object.fromEntries([...this.times].sort().map(([k, v]) => [k, busiestWindow(v, windowMs)]));
  }

  /** The busiest window over all callers, each counted on its own (the vendor's limit is per token). */
  worst(windowMs = 1000): BusiestWindow & { caller?: string } {
    let out: BusiestWindow & { caller?: string } = { count: 0, startMs: NaN };
    for (const [caller, w] of Object.entries(this.byCaller(windowMs))) {
      if (w.count > out.count) out = { ...w, caller };
    }
    return out;
  }
}

/** 429s per endpoint that no fault injected: the vendor's own limits speaking. */
export function natural429s(c: Pick<Counters, 'rateLimited429' | 'faultsByEndpoint'>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [endpoint, total] of Object.entries(c.rateLimited429)) {
    const natural = total - (c.faultsByEndpoint[endpoint]?.rateLimit429 ?? 0);
    if (natural > 0) out[endpoint] = natural;
  }
  return out;
}

export const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);
