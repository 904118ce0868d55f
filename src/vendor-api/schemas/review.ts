/** Asset review: submit and result items. Task/callback/sync shapes: assumed-shapes.ts. */
import { z } from 'zod';
import { inferMediaType, MEDIA_TYPES } from '../batching';
import { MAX_REVIEW_BATCH } from '../documented-values';
import { HttpUrlSchema, NonEmptyString } from './common';
import { nullIsAbsent, StatusSchema } from './response';

const UrlList = z.array(z.string()).max(MAX_REVIEW_BATCH, `at most ${MAX_REVIEW_BATCH} URLs per submission`);

export const ReviewSubmitRequestSchema = z
  .strictObject({
    images: UrlList.optional(),
    /** Legacy twin of images; wins when both are sent. */
    asset_url_list: UrlList.optional(),
    /** Vendor default is Image; the client fills in the inferred type when absent. */
    asset_type: z.enum(MEDIA_TYPES).optional(),
    callback_url: HttpUrlSchema.optional(),
    group_id: NonEmptyString.optional(),
    group_source: z.string().optional(),
  })
  .superRefine((req, ctx) => {
    const key = req.asset_url_list !== undefined ? 'asset_url_list' : 'images';
    const urls = req[key] ?? [];
    if (urls.length === 0) {
      ctx.addIssue({ code: 'custom', path: [key], message: 'must list at least one URL (images or asset_url_list)' });
      return;
    }
    const expected = req.asset_type;
    let first: string | undefined;
    urls.forEach((url, i) => {
      const t = inferMediaType(url);
      if (!t.ok) {
        ctx.addIssue({ code: 'custom', path: [key, i], message: t.reason });
        return;
      }
      first ??= t.type;
      const want = expected ?? first;
      if (t.type !== want) {
        ctx.addIssue({ code: 'custom', path: [key, i], message: `is ${t.type}; one batch holds one type (${want})` });
      }
    });
    if (
      req.group_id !== undefined &&
      req.group_source !== undefined &&
      !['', 'real_person'].includes(req.group_source)
    ) {
      ctx.addIssue({ code: 'custom', path: ['group_source'], message: "must be '' or 'real_person' with group_id" });
    }
  });
export type ReviewSubmitRequest = z.input<typeof ReviewSubmitRequestSchema>;

/** 202 from async submit: accepted only, not reviewed. */
export const ReviewAcceptedSchema = nullIsAbsent(
  z.looseObject({
    code: z.number().int(),
    task_id: NonEmptyString,
    track_id: z.string(),
    status: StatusSchema,
    message: z.string().optional(),
    callback_url: z.string().optional(),
  }),
);
export type ReviewAccepted = z.output<typeof ReviewAcceptedSchema>;
