/**
 * How a stage polls each kind of vendor task: the first wait, the cap, the growth, the vendor's
 * minimum interval and the slower cadence while callbacks are expected (docs/architecture.md,
 * "Polling"). Pure values: the workflow's poll loop (src/workflows/lib/poll/poll.ts) runs them, and
 * the bench's baseline polls on the same ones.
 */
import { MIN_QUERY_INTERVAL_MS } from '../vendor-api/assumed-values';

export interface PollPolicy {
  firstMs: number;
  maxMs: number;
  factor: number;
  /**
   * Never query more often than this (the vendor's minimums: GetAsset 500 ms, review 1 s;
   * docs/vendor-contract.md, "What we assume where the documentation is silent").
   */
  minMs: number;
  /** Cadence multiplier while callbacks are expected. */
  callbackSlowdown: number;
}

export const DEFAULT_POLICIES = {
  asset: { firstMs: 1_000, maxMs: 5_000, factor: 1.5, minMs: MIN_QUERY_INTERVAL_MS.asset, callbackSlowdown: 1 },
  review: { firstMs: 1_000, maxMs: 10_000, factor: 1.5, minMs: MIN_QUERY_INTERVAL_MS.review, callbackSlowdown: 3 },
  generation: {
    firstMs: 2_000,
    maxMs: 15_000,
    factor: 1.5,
    minMs: MIN_QUERY_INTERVAL_MS.generation,
    callbackSlowdown: 3,
  },
  erase: { firstMs: 2_000, maxMs: 15_000, factor: 1.5, minMs: MIN_QUERY_INTERVAL_MS.erase, callbackSlowdown: 3 },
} satisfies Record<string, PollPolicy>;

/** Membership for the vendor's readonly state tuples. */
export function isOneOf(value: string, list: readonly string[]): boolean {
  return list.includes(value);
}
