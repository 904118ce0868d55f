/**
 * The vendor emulator as tests set it up: its default credentials (the emulator's own
 * exports, src/emulator/options.ts) and the two sets of sub-second timings tests run it with.
 */
import { DEFAULT_ACCESS_TOKENS, DEFAULT_API_KEYS, type Timings } from '../../src/emulator';

/** The emulator's default API key (generation, erasure). */
export const API_KEY = DEFAULT_API_KEYS[0];
/** Its two default access tokens (asset management, review): one user each. */
export const USER_1 = DEFAULT_ACCESS_TOKENS[0];
export const USER_2 = DEFAULT_ACCESS_TOKENS[1];

/**
 * For a frozen clock (test/emulator): a state moves on only when the test calls
 * advanceClock, so the steps a test takes are these durations.
 */
export const FROZEN_CLOCK_TIMINGS: Partial<Timings> = {
  generationQueuedMs: 1_000,
  generationRunningMs: 2_000,
  eraseSubmittedMs: 500,
  eraseQueuedMs: 500,
  eraseInProgressMs: 1_000,
  assetProcessingMs: 1_000,
  reviewPendingMs: 500,
  reviewProcessingMs: 1_000,
  reviewMinQueryIntervalMs: 0,
  tickMs: 20,
};

/** For real time (test/contract): every task ends within a fraction of a second, or on advanceClock. */
export const REAL_CLOCK_TIMINGS: Partial<Timings> = {
  generationQueuedMs: 100,
  generationRunningMs: 200,
  eraseSubmittedMs: 50,
  eraseQueuedMs: 50,
  eraseInProgressMs: 100,
  assetProcessingMs: 200,
  reviewPendingMs: 50,
  reviewProcessingMs: 100,
};
