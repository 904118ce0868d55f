/** Generation interface: create and the assumed query (assumed-shapes.ts). */
import { GenerationTaskSchema, type GenerationTask } from './assumed-shapes';
import { exchange, joinUrl, pathParam, type CallOptions, type VendorContext } from './context';
import { pathOf } from './spans';
import {
  GenerationCreateRequestSchema,
  GenerationCreateResponseSchema,
  type GenerationCreateRequest,
  type GenerationCreateResponse,
} from './schemas/generation';
import { validateRequest } from './validate';

export interface GenerationApi {
  /** POST {base_url}/v1/task/create. Not idempotent: an AmbiguousError means reconcile. */
  create: (req: GenerationCreateRequest, opts?: CallOptions) => Promise<GenerationCreateResponse>;
  /** GET {base_url}/v1/task/get/{id}. */
  get: (id: string, opts?: CallOptions) => Promise<GenerationTask>;
}

const CREATE_FIELDS = Object.keys(GenerationCreateRequestSchema.shape);

export function createGenerationApi(ctx: VendorContext): GenerationApi {
  return {
    async create(req, opts) {
      const endpoint = 'generation.create';
      const body = validateRequest(endpoint, GenerationCreateRequestSchema, req);
      return exchange(
        ctx,
        {
          endpoint,
          method: 'POST',
          url: joinUrl(ctx.baseUrl, '/v1/task/create'),
          auth: 'apiKey',
          body,
          idempotent: false,
          knownFields: CREATE_FIELDS,
          response: GenerationCreateResponseSchema,
        },
        opts,
      );
    },
    async get(id, opts) {
      const endpoint = 'generation.get';
      const url = joinUrl(ctx.baseUrl, `/v1/task/get/${pathParam(endpoint, 'id', id)}`);
      return exchange(
        ctx,
        {
          endpoint,
          method: 'GET',
          url,
          route: pathOf(joinUrl(ctx.baseUrl, '/v1/task/get/{id}')),
          auth: 'apiKey',
          idempotent: true,
          response: GenerationTaskSchema,
        },
        opts,
      );
    },
  };
}
