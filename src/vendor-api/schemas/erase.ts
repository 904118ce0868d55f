/** Erase interface: create, query, callback (docs/vendor-contract.md). */
import { z } from 'zod';
import { HttpUrlSchema, NonEmptyString } from './common';
import { nullIsAbsent, StatusSchema } from './response';

// The known states live with the other plain values (workflows import them without zod).
export { ERASE_STATES, ERASE_TERMINAL_STATES, type EraseState } from '../assumed-values';

export const EraseCreateRequestSchema = z.strictObject({
  /** Original URL of a video from the vendor's own generation endpoint, < 24 h old. */
  video_url: HttpUrlSchema,
  /** Body wins over the X-Callback-URL header when both are sent. */
  callback_url: HttpUrlSchema.optional(),
});
export type EraseCreateRequest = z.input<typeof EraseCreateRequestSchema>;

export const EraseCreateResponseSchema = nullIsAbsent(
  z.looseObject({ task_id: NonEmptyString, request_id: z.string() }),
);
export type EraseCreateResponse = z.output<typeof EraseCreateResponseSchema>;

/**
 * Query response and callback body (identical: docs/vendor-contract.md). Any non-empty status: resellers
 * also send NOT_START and UNKNOWN (known ones: ERASE_STATES).
 */
export const EraseTaskSchema = nullIsAbsent(
  z
    .looseObject({
      task_id: NonEmptyString,
      request_id: z.string(),
      status: StatusSchema,
      video_url: z.string().optional(),
      fail_reason: z.string().optional(),
    })
    .superRefine((t, ctx) => {
      // A SUCCESS without its video is useless to the caller: treat it as a bad reply.
      if (t.status === 'SUCCESS' && !t.video_url) {
        ctx.addIssue({ code: 'custom', path: ['video_url'], message: 'required when status is SUCCESS' });
      }
    }),
);
export type EraseTask = z.output<typeof EraseTaskSchema>;
export const EraseCallbackSchema = EraseTaskSchema;
