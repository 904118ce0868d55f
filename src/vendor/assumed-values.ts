/**
 * The plain values among the assumptions (see assumptions.ts, which re-exports them):
 * no zod here, so workflows import them cheaply.
 */

/** States of a generation task (spec 3.4: "not shown"). */
export const GENERATION_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export const GENERATION_TERMINAL_STATES = ['succeeded', 'failed', 'cancelled'] as const;
export type GenerationState = (typeof GENERATION_STATES)[number];

/** States of a review task (spec 3.3; transitions not shown). */
export const REVIEW_STATES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export const REVIEW_TERMINAL_STATES = ['completed', 'failed', 'cancelled'] as const;
export type ReviewState = (typeof REVIEW_STATES)[number];

/** Minimum interval between review task queries (spec 4.5 rule 3: value "not shown"). */
export const REVIEW_MIN_QUERY_INTERVAL_MS = 1_000;
