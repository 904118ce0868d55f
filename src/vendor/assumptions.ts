/**
 * Every shape the vendor spec leaves "not shown" lives here, and only here.
 * The client validates with these schemas and the emulator produces them, so
 * changing an assumption is a one-file change. Each is listed in the README
 * under "Assumptions". Schemas are loose: unknown extra fields are accepted.
 */
import { z } from 'zod';
import { GENERATION_STATES, REVIEW_STATES } from './assumed-values';

// The plain values (states, intervals) live in assumed-values.ts, which has no zod, so
// workflow code can import them without evaluating every schema in each workflow context.
export * from './assumed-values';


/** Response of GET {base_url}/v1/task/get/{id} (spec 4.1: "not shown"). */
export const GenerationTaskSchema = z.looseObject({
  id: z.string(),
  status: z.enum(GENERATION_STATES),
  /** Original generated video URL; present when succeeded; valid 24 h from generation. */
  video_url: z.string().optional(),
  fail_reason: z.string().optional(),
  /** Unix seconds. */
  created_at: z.number().optional(),
  /** Unix seconds; when the video was produced (start of its 24 h validity). */
  finished_at: z.number().optional(),
});
export type GenerationTask = z.infer<typeof GenerationTaskSchema>;

/** Generation callback body (spec 6: "payload: not shown"): the same object as the query. */
export const GenerationCallbackSchema = GenerationTaskSchema;

/**
 * Review task: the documented query response (spec 2.6 / 4.5). Kept here because the
 * review callback payload and the sync-submit response are assumed to be this same object.
 */

export const ReviewItemSchema = z.looseObject({
  asset_id: z.string().optional(),
  source_url: z.string(),
  asset_url: z.string().optional(),
  downstream_asset_id: z.string().optional(),
  downstream_final_url: z.string().optional(),
  submit_review_status: z.number().int(),
  error_code: z.union([z.string(), z.number()]).optional(),
  error_message: z.string().optional(),
});
export type ReviewItem = z.infer<typeof ReviewItemSchema>;

export const ReviewTaskSchema = z.looseObject({
  code: z.number().int(),
  task_id: z.string(),
  status: z.enum(REVIEW_STATES),
  total_count: z.number().int().optional(),
  done_count: z.number().int().optional(),
  result: z
    .looseObject({
      review_batch_id: z.string().optional(),
      items: z.array(ReviewItemSchema).default([]),
    })
    .optional(),
});
export type ReviewTask = z.infer<typeof ReviewTaskSchema>;

/** Review callback body (spec 6: "payload: not shown"): assumed equal to the task query response. */
export const ReviewCallbackSchema = ReviewTaskSchema;
/** Sync review submit response (spec 4.5: "not shown"): assumed equal to a finished task query. */
export const ReviewSyncResponseSchema = ReviewTaskSchema;


/**
 * Error body of generation, erase and review (spec 7.1, 7.2, 7.4: "not shown"; only
 * asset management documents `{ Code, Message, TrackId }`). Read tolerantly: the
 * asset-management form, lowercase code/message, an `error` string or object, and an
 * optional `field`. Anything else is ignored and the HTTP status alone classifies.
 */
const ErrorCodeSchema = z.union([z.string(), z.number()]);
export const VendorErrorBodySchema = z.looseObject({
  Code: ErrorCodeSchema.optional(),
  Message: z.string().optional(),
  TrackId: z.string().optional(),
  code: ErrorCodeSchema.optional(),
  message: z.string().optional(),
  error: z
    .union([z.string(), z.looseObject({ code: ErrorCodeSchema.optional(), message: z.string().optional() })])
    .optional(),
  field: z.string().optional(),
});

/**
 * Entry points named only by path (spec 4.6: base address, credentials and shapes "not
 * shown"): assumed to live under {base_url} with the same `Bearer <API_KEY>` as
 * generation. Request and response bodies stay `unknown`.
 */
export const RAW_ENTRY_POINTS_BASE = 'base_url' as const;

/**
 * Sync review submit waits for the review itself (spec 4.5: duration "not shown"), so
 * its default time-to-response-headers is longer than other calls'.
 */
export const REVIEW_SYNC_HEADERS_TIMEOUT_MS = 300_000;

/**
 * Vendor cancel endpoint for generation (spec 4.1 mentions cancelling; path and shape
 * "not shown"): reelflow never calls one. Cancelling a pipeline reports the vendor task
 * ids that may still be running instead.
 */
export const VENDOR_CANCEL_ENDPOINT_KNOWN = false;
