/** Erase interface (spec 2.3, 3.1, 4.2, 4.3, 6). */
import { z } from 'zod';
import { HttpUrlSchema, NonEmptyString } from './common';

export const EraseCreateRequestSchema = z.strictObject({
  /** Original URL of a video from the vendor's own generation endpoint, < 24 h old. */
  video_url: HttpUrlSchema,
  /** Body wins over the X-Callback-URL header when both are sent. */
  callback_url: HttpUrlSchema.optional(),
});
export type EraseCreateRequest = z.input<typeof EraseCreateRequestSchema>;

export const EraseCreateResponseSchema = z.looseObject({ task_id: NonEmptyString, request_id: z.string() });
export type EraseCreateResponse = z.output<typeof EraseCreateResponseSchema>;

export const ERASE_STATES = ['SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE'] as const;
export const ERASE_TERMINAL_STATES = ['SUCCESS', 'FAILURE'] as const;
export type EraseState = (typeof ERASE_STATES)[number];

/** Query response and callback body (identical per spec 6). */
export const EraseTaskSchema = z
  .looseObject({
    task_id: NonEmptyString,
    request_id: z.string(),
    status: z.enum(ERASE_STATES),
    video_url: z.string().optional(),
    fail_reason: z.string().optional(),
  })
  .superRefine((t, ctx) => {
    // A SUCCESS without its video is useless to the caller: treat it as a bad reply.
    if (t.status === 'SUCCESS' && !t.video_url) {
      ctx.addIssue({ code: 'custom', path: ['video_url'], message: 'required when status is SUCCESS' });
    }
  });
export type EraseTask = z.output<typeof EraseTaskSchema>;
export const EraseCallbackSchema = EraseTaskSchema;
