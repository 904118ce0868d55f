/** Subtitle erasure: create and query. */
import { z } from 'zod';
import { exchange, joinUrl, pathParam, type CallOptions, type VendorContext } from './context';
import { pathOf } from './spans';
import {
  EraseCreateRequestSchema,
  EraseCreateResponseSchema,
  EraseTaskSchema,
  type EraseCreateRequest,
  type EraseCreateResponse,
  type EraseTask,
} from './schemas/erase';
import { HttpUrlSchema } from './schemas/common';
import { validateRequest } from './validate';

export interface EraseCreateOptions extends CallOptions {
  /** Sent as X-Callback-URL. If `callback_url` is also in the body, the vendor uses the body. */
  callbackUrlHeader?: string;
}

export interface EraseApi {
  /**
   * POST {base_url}/api/v1/svc-tools/svc-erase-video-subtitle-pro with a fresh X-Trace-ID
   * (`svc` = the client's pathWord).
   * 502 → UpstreamFailedError (resubmit only with another video_url).
   */
  create: (req: EraseCreateRequest, opts?: EraseCreateOptions) => Promise<EraseCreateResponse>;
  /** GET {base_url}/api/v1/svc-tasks/{task_id} (`svc` = the client's pathWord). Any status string may come. */
  get: (taskId: string, opts?: CallOptions) => Promise<EraseTask>;
}

const CREATE_FIELDS = Object.keys(EraseCreateRequestSchema.shape);
const CallbackHeaderSchema = z.strictObject({ 'X-Callback-URL': HttpUrlSchema });

export function createEraseApi(ctx: VendorContext): EraseApi {
  return {
    async create(req, opts = {}) {
      const endpoint = 'erase.create';
      const body = validateRequest(endpoint, EraseCreateRequestSchema, req);
      const headers: Record<string, string> = {};
      if (opts.callbackUrlHeader !== undefined) {
        const h = validateRequest(endpoint, CallbackHeaderSchema, { 'X-Callback-URL': opts.callbackUrlHeader });
        headers['X-Callback-URL'] = h['X-Callback-URL'];
      }
      return exchange(
        ctx,
        {
          endpoint,
          method: 'POST',
          url: joinUrl(ctx.baseUrl, `/api/v1/${ctx.pathWord}-tools/${ctx.pathWord}-erase-video-subtitle-pro`),
          auth: 'apiKey',
          traceHeader: 'X-Trace-ID',
          headers,
          body,
          idempotent: false,
          knownFields: CREATE_FIELDS,
          response: EraseCreateResponseSchema,
        },
        opts,
      );
    },
    async get(taskId, opts) {
      const endpoint = 'erase.get';
      const url = joinUrl(ctx.baseUrl, `/api/v1/${ctx.pathWord}-tasks/${pathParam(endpoint, 'task_id', taskId)}`);
      return exchange(
        ctx,
        {
          endpoint,
          method: 'GET',
          url,
          route: pathOf(joinUrl(ctx.baseUrl, `/api/v1/${ctx.pathWord}-tasks/{task_id}`)),
          auth: 'apiKey',
          idempotent: true,
          response: EraseTaskSchema,
        },
        opts,
      );
    },
  };
}
