/**
 * The response shapes the vendor's documentation leaves "not shown" (docs/vendor-contract.md,
 * "What we assume where the documentation is silent"), as zod schemas: the generation
 * query and callback, the review task, callback and sync answer, the error body. Only
 * assumed shapes belong here: the documented request and response schemas are in schemas/,
 * plain assumed values (states, intervals) in assumed-values.ts, stated values in
 * documented-values.ts. The client validates with these schemas and the emulator produces
 * them, so changing an assumption is a one-file change. Schemas are loose: unknown extra
 * fields are accepted.
 */
import { z } from 'zod';
import { NonEmptyString } from './schemas/common';
import { CodeSchema, nullIsAbsent, StatusSchema } from './schemas/response';

/**
 * A generation task as reelflow reads it, whatever the vendor's dialect (query shape
 * "not shown": docs/vendor-contract.md). Unix seconds; states: GENERATION_STATES, but any string may come.
 */
export interface GenerationTask {
  id: string;
  status: string;
  /** Original generated video URL; present when succeeded; valid 24 h from generation. */
  video_url?: string;
  last_frame_url?: string;
  fail_reason?: string;
  error_code?: string;
  model?: string;
  created_at?: number;
  updated_at?: number;
  /** When the video was produced (start of its 24 h validity); the upstream sends none. */
  finished_at?: number;
}

/** The upstream's (Ark content generation) result object. */
const UpstreamContentSchema = z.looseObject({
  video_url: z.string().optional(),
  last_frame_url: z.string().optional(),
});
/** The upstream's failure: `{code, message}` (a bare string is read as the message). */
const UpstreamErrorSchema = z.union([
  z.string(),
  z.looseObject({ code: CodeSchema.optional(), message: z.string().optional() }),
]);

/**
 * The query response in either dialect: ours (top-level video_url, fail_reason,
 * finished_at) or the upstream's (content.video_url, error {code, message},
 * created_at/updated_at). A `content` array (an echo of the create request) is ignored.
 */
const GenerationWireSchema = z.looseObject({
  id: NonEmptyString,
  status: StatusSchema,
  video_url: z.string().optional(),
  last_frame_url: z.string().optional(),
  fail_reason: z.string().optional(),
  error_code: CodeSchema.optional(),
  finished_at: z.number().optional(),
  content: z.union([UpstreamContentSchema, z.array(z.unknown())]).optional(),
  error: UpstreamErrorSchema.optional(),
  model: z.string().optional(),
  created_at: z.number().optional(),
  updated_at: z.number().optional(),
});

/** One snake_case shape, so callers need not know the dialect: ours wins where both are given. */
function normalizeGeneration(w: z.output<typeof GenerationWireSchema>): GenerationTask {
  const content = Array.isArray(w.content) ? undefined : w.content;
  const error = typeof w.error === 'string' ? { message: w.error } : w.error;
  const code = w.error_code ?? error?.code;
  const task: Record<keyof GenerationTask, unknown> = {
    id: w.id,
    status: w.status,
    video_url: w.video_url ?? content?.video_url,
    last_frame_url: w.last_frame_url ?? content?.last_frame_url,
    fail_reason: w.fail_reason ?? error?.message,
    error_code: code === undefined ? undefined : String(code),
    model: w.model,
    created_at: w.created_at,
    updated_at: w.updated_at,
    finished_at: w.finished_at,
  };
  return Object.fromEntries(Object.entries(task).filter(([, v]) => v !== undefined)) as unknown as GenerationTask;
}

/** Response of GET {base_url}/v1/task/get/{id}, normalized to GenerationTask. */
export const GenerationTaskSchema = nullIsAbsent(GenerationWireSchema.transform(normalizeGeneration));

/** Generation callback body ("not shown"): the same object as the query. */
export const GenerationCallbackSchema = GenerationTaskSchema;

/**
 * Review task: the documented query response. Kept here because the
 * review callback payload and the sync-submit response are assumed to be this same object.
 */
const ReviewItemWireSchema = z.looseObject({
  asset_id: z.string().optional(),
  source_url: z.string(),
  asset_url: z.string().optional(),
  downstream_asset_id: z.string().optional(),
  downstream_final_url: z.string().optional(),
  submit_review_status: z.number().int(),
  error_code: CodeSchema.optional(),
  error_message: z.string().optional(),
});
export const ReviewItemSchema = nullIsAbsent(ReviewItemWireSchema);
export type ReviewItem = z.infer<typeof ReviewItemSchema>;

export const ReviewTaskSchema = nullIsAbsent(
  z.looseObject({
    code: z.number().int(),
    task_id: z.string(),
    /** REVIEW_STATES, but any string may come. */
    status: StatusSchema,
    total_count: z.number().int().optional(),
    done_count: z.number().int().optional(),
    result: z
      .looseObject({
        review_batch_id: z.string().optional(),
        items: z.array(ReviewItemWireSchema).default([]),
      })
      .optional(),
  }),
);
export type ReviewTask = z.infer<typeof ReviewTaskSchema>;

/** Review callback body ("not shown"): assumed equal to the task query response. */
export const ReviewCallbackSchema = ReviewTaskSchema;
/** Sync review submit response ("not shown"): assumed equal to a finished task query. */
export const ReviewSyncResponseSchema = ReviewTaskSchema;

/**
 * Error body of generation, erase and review ("not shown"; only
 * asset management documents `{ Code, Message, TrackId }`). Read tolerantly: the
 * asset-management form, the Volcengine OpenAPI form (`ResponseMetadata.Error {Code,
 * Message}`, no top-level Code), lowercase code/message, an `error` string or object,
 * and an optional `field`. A member of another type is ignored, not fatal; nothing
 * readable leaves the HTTP status alone to classify.
 */
const lenient = <S extends z.ZodType>(s: S) => s.optional().catch(undefined);
export const VendorErrorBodySchema = nullIsAbsent(
  z.looseObject({
    Code: lenient(CodeSchema),
    Message: lenient(z.string()),
    TrackId: lenient(z.string()),
    ResponseMetadata: lenient(
      z.looseObject({
        RequestId: lenient(z.string()),
        Error: lenient(z.looseObject({ Code: lenient(CodeSchema), Message: lenient(z.string()) })),
      }),
    ),
    code: lenient(CodeSchema),
    message: lenient(z.string()),
    error: lenient(z.union([z.string(), z.looseObject({ code: lenient(CodeSchema), message: lenient(z.string()) })])),
    field: lenient(z.string()),
  }),
);

// Vendor cancel endpoint for generation (the vendor mentions cancelling; path and shape
// "not shown"): reelflow never calls one. Cancelling a pipeline reports the vendor task
// ids that may still be running instead.
