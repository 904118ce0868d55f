/**
 * Each token's rate limit: a token bucket per token name, refilled at `ratePerSecond` and
 * holding one second's worth, in this process (each gateway replica limits on its own).
 */
export interface RateLimiter {
  /** 0 when the request may go; else the seconds to wait (a Retry-After). */
  take(key: string, nowMs?: number): number;
}

export function rateLimiter(ratePerSecond: number): RateLimiter {
  const capacity = Math.max(1, ratePerSecond);
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, nowMs = Date.now()) {
      const b = buckets.get(key) ?? { tokens: capacity, at: nowMs };
      b.tokens = Math.min(capacity, b.tokens + ((nowMs - b.at) / 1000) * ratePerSecond);
      b.at = nowMs;
      buckets.set(key, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - b.tokens) / ratePerSecond));
    },
  };
}
