/**
 * Asset review under {identity_url}: X-Access-Token and a fresh X-Track-Id
 * on every call. Submissions are checked before sending: ≤ 50 public http(s) URLs of
 * one supported type; `asset_type` is filled in from the extensions when absent (the
 * vendor would otherwise assume Image).
 */
import type { z } from 'zod';
import { REVIEW_SYNC_HEADERS_TIMEOUT_MS } from './assumed-values';
import { ReviewSyncResponseSchema, ReviewTaskSchema, type ReviewTask } from './assumed-shapes';
import { inferMediaType } from './batching';
import { exchange, joinUrl, pathParam, type CallOptions, type VendorContext } from './context';
import { pathOf } from './spans';
import {
  ReviewAcceptedSchema,
  ReviewSubmitRequestSchema,
  type ReviewAccepted,
  type ReviewSubmitRequest,
} from './schemas/review';
import { validateRequest } from './validate';

export interface ReviewApi {
  /** POST /api/asset/upload/sync: waits for the review (long default headers timeout). */
  submitSync: (req: ReviewSubmitRequest, opts?: CallOptions) => Promise<ReviewTask>;
  /** POST /api/asset/upload/async: 202, accepted only. Not idempotent. */
  submitAsync: (req: ReviewSubmitRequest, opts?: CallOptions) => Promise<ReviewAccepted>;
  /** GET /api/task/{task_id}. Read asset addresses only from result.items[]. */
  getTask: (taskId: string, opts?: CallOptions) => Promise<ReviewTask>;
}

const SUBMIT_FIELDS = Object.keys(ReviewSubmitRequestSchema.shape);

function submitBody(endpoint: string, req: ReviewSubmitRequest) {
  const body = validateRequest(endpoint, ReviewSubmitRequestSchema, req);
  if (body.asset_type === undefined) {
    const first = (body.asset_url_list ?? body.images ?? [])[0] ?? '';
    const t = inferMediaType(first);
    if (t.ok) body.asset_type = t.type;
  }
  return body;
}

export function createReviewApi(ctx: VendorContext): ReviewApi {
  async function submit<S extends z.ZodType>(
    kind: 'sync' | 'async',
    response: S,
    req: ReviewSubmitRequest,
    opts?: CallOptions,
  ) {
    const endpoint = kind === 'sync' ? 'review.submitSync' : 'review.submitAsync';
    return exchange(
      ctx,
      {
        endpoint,
        method: 'POST',
        url: joinUrl(ctx.identityUrl, `/api/asset/upload/${kind}`),
        auth: 'accessToken',
        traceHeader: 'X-Track-Id',
        body: submitBody(endpoint, req),
        idempotent: false,
        knownFields: SUBMIT_FIELDS,
        response,
        ...(kind === 'sync' ? { minHeadersMs: REVIEW_SYNC_HEADERS_TIMEOUT_MS } : {}),
      },
      opts,
    );
  }
  return {
    submitSync: (req, opts) => submit('sync', ReviewSyncResponseSchema, req, opts),
    submitAsync: (req, opts) => submit('async', ReviewAcceptedSchema, req, opts),
    async getTask(taskId, opts) {
      const endpoint = 'review.getTask';
      const url = joinUrl(ctx.identityUrl, `/api/task/${pathParam(endpoint, 'task_id', taskId)}`);
      return exchange(
        ctx,
        {
          endpoint,
          method: 'GET',
          url,
          route: pathOf(joinUrl(ctx.identityUrl, '/api/task/{task_id}')),
          auth: 'accessToken',
          traceHeader: 'X-Track-Id',
          idempotent: true,
          response: ReviewTaskSchema,
        },
        opts,
      );
    },
  };
}
