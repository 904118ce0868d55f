/**
 * The API's routes and their zod schemas (docs/api.md): the OpenAPI 3.1 document served at
 * GET /v1/openapi.json is derived from exactly these, so the document and the routes cannot
 * drift (test/gateway/openapi.test.ts checks it against the router too).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { LIST_STATUSES, RERUN_FROM_VALUES } from './vocabulary';

const Problem = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi('Problem');

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});

/** Answers every authenticated route may give. */
const COMMON = {
  401: problem('No valid bearer token'),
  404: problem('No such pipeline, or not one this token may see'),
  413: problem('Request body over the size limit'),
  429: problem('Over this token’s rate limit (Retry-After says when to come back)'),
};

const security: Record<string, string[]>[] = [{ bearer: [] }];
const streamSecurity: Record<string, string[]>[] = [{ bearer: [] }, { streamToken: [] }];

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const PipelineId = z
  .string()
  .min(1)
  .max(1000)
  .openapi({ param: { name: 'id', in: 'path' }, example: 'reelflow:acme:order-1234' });
const IdParams = z.object({ id: PipelineId });

const Definition = z.record(z.string(), z.unknown()).openapi('PipelineDefinition', {
  description:
    'A pipeline definition (docs/definitions.md; JSON Schema: schema/pipeline-definition.schema.json). A tenant token’s start runs as its tenant, whatever options.tenant says.',
});

const Started = z
  .object({
    pipelineId: z.string(),
    runId: z.string().optional(),
    created: z.boolean().openapi({ description: 'false: the Idempotency-Key already named this pipeline' }),
  })
  .openapi('Started');

export const startPipelineRoute = createRoute({
  method: 'post',
  path: '/v1/pipelines',
  summary: 'Start one pipeline',
  security,
  request: {
    headers: z.object({
      'idempotency-key': z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,200}$/)
        .optional()
        .openapi({ description: 'The same key answers the same pipeline and never starts a second' }),
    }),
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.object({
            definition: Definition,
            priority: z.enum(['interactive', 'normal', 'batch']).optional(),
          }),
        },
      },
    },
  },
  responses: {
    201: json(Started, 'Started'),
    200: json(Started, 'This Idempotency-Key’s pipeline, started earlier'),
    400: problem('Malformed request'),
    422: problem('Invalid definition: `errors` lists each field path'),
    ...COMMON,
  },
});

const BatchLine = z.looseObject({
  line: z.number().int(),
  outcome: z.enum(['started', 'already-started', 'failed']),
  workflowId: z.string().optional(),
  error: z.string().optional(),
  field: z.string().optional(),
});

export const startBatchRoute = createRoute({
  method: 'post',
  path: '/v1/batches',
  summary: 'Start a batch: one pipeline per definition, each started at most once',
  security,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.object({
            batchId: z
              .string()
              .regex(/^[A-Za-z0-9_.-]{1,150}$/)
              .optional(),
            definitions: z.array(Definition).min(1).max(1000),
          }),
        },
      },
    },
  },
  responses: {
    200: json(
      z
        .object({
          batchId: z.string(),
          total: z.number().int(),
          started: z.array(BatchLine),
          alreadyStarted: z.array(BatchLine),
          failed: z.array(BatchLine),
        })
        .openapi('BatchReport'),
      'What each definition did',
    ),
    400: problem('Malformed request'),
    ...COMMON,
  },
});

const Summary = z
  .looseObject({
    workflowId: z.string(),
    executionStatus: z.string(),
    status: z.string().optional(),
    stage: z.string().optional(),
    batch: z.string().optional(),
    tenant: z.string().optional(),
    startTime: z.string(),
    closeTime: z.string().optional(),
  })
  .openapi('PipelineSummary');

export const listPipelinesRoute = createRoute({
  method: 'get',
  path: '/v1/pipelines',
  summary: 'List pipelines, newest first (a tenant token lists its tenant’s only)',
  security,
  request: {
    query: z.object({
      state: z.enum(LIST_STATUSES).optional(),
      batch: z.string().optional(),
      tenant: z.string().optional().openapi({ description: 'Admin tokens only; a tenant token’s is its own' }),
      pageSize: z.coerce.number().int().min(1).max(500).optional(),
      pageToken: z.string().optional(),
    }),
  },
  responses: {
    200: json(
      z.object({ pipelines: z.array(Summary), nextPageToken: z.string().optional() }),
      'One page; pass nextPageToken for the next',
    ),
    400: problem('Malformed request'),
    ...COMMON,
  },
});

const Status = z
  .looseObject({
    pipelineId: z.string(),
    state: z.string().optional(),
    stage: z.string().optional(),
    executionStatus: z.string().optional(),
  })
  .openapi('PipelineStatus', { description: 'The status query’s answer (src/contract/status.ts)' });

export const statusRoute = createRoute({
  method: 'get',
  path: '/v1/pipelines/{id}',
  summary: 'A pipeline’s live status',
  security,
  request: { params: IdParams },
  responses: { 200: json(Status, 'The status'), ...COMMON },
});

const End = z
  .looseObject({
    status: z.enum(['completed', 'failed', 'cancelled', 'terminated', 'timed-out']),
    result: z.record(z.string(), z.unknown()).optional(),
    failure: z
      .looseObject({ type: z.string().optional(), stage: z.string().optional(), message: z.string() })
      .optional(),
  })
  .openapi('PipelineEnd');

export const resultRoute = createRoute({
  method: 'get',
  path: '/v1/pipelines/{id}/result',
  summary: 'How a pipeline ended: its result, or its failure',
  security,
  request: { params: IdParams },
  responses: { 200: json(End, 'It ended'), 409: problem('Still running'), ...COMMON },
});

export const cancelRoute = createRoute({
  method: 'post',
  path: '/v1/pipelines/{id}/cancel',
  summary: 'Request cancellation',
  security,
  request: { params: IdParams },
  responses: {
    202: json(z.object({ pipelineId: z.string(), cancelRequested: z.literal(true) }), 'Requested'),
    409: problem('Already ended'),
    ...COMMON,
  },
});

export const resolveRoute = createRoute({
  method: 'post',
  path: '/v1/pipelines/{id}/resolve',
  summary: 'Answer an operator wait (proven at the vendor, as `reelflow resolve`)',
  security,
  request: {
    params: IdParams,
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.union([
            z.object({ taskId: z.string().min(1).max(200), step: z.string().optional() }).strict(),
            z.object({ resubmit: z.literal(true), step: z.string().optional() }).strict(),
            z.object({ abandon: z.literal(true), step: z.string().optional() }).strict(),
          ]),
        },
      },
    },
  },
  responses: {
    200: json(z.looseObject({ stage: z.string(), step: z.string() }), 'Accepted'),
    400: problem('Malformed request'),
    409: problem('Refused: nothing waits, or the task id failed the proof'),
    ...COMMON,
  },
});

export const rerunRoute = createRoute({
  method: 'post',
  path: '/v1/pipelines/{id}/rerun',
  summary: 'Start a new pipeline reusing the finished outputs of this one',
  security,
  request: {
    params: IdParams,
    body: {
      required: false,
      content: { 'application/json': { schema: z.object({ from: z.enum(RERUN_FROM_VALUES).optional() }) } },
    },
  },
  responses: {
    201: json(z.looseObject({ pipelineId: z.string(), from: z.string() }), 'The new pipeline'),
    409: problem('Refused (still running, nothing to reuse, expired)'),
    ...COMMON,
  },
});

export const archivedFileRoute = createRoute({
  method: 'get',
  path: '/v1/pipelines/{id}/archive',
  summary: 'An archived file of a completed pipeline (proxied, or a redirect to a presigned URL)',
  security,
  request: { params: IdParams, query: z.object({ name: z.string().optional() }) },
  responses: {
    200: { description: 'The file', content: { 'application/octet-stream': { schema: z.string() } } },
    302: { description: 'Redirect to a presigned URL (object-store archive)' },
    409: problem('Not completed, or archived nothing'),
    503: problem('No archive server configured'),
    ...COMMON,
  },
});

const sse = (description: string) => ({ description, content: { 'text/event-stream': { schema: z.string() } } });

export const pipelineEventsRoute = createRoute({
  method: 'get',
  path: '/v1/pipelines/{id}/events',
  summary: 'Server-Sent Events: a versioned status snapshot per change, then `end`',
  security: streamSecurity,
  request: {
    params: IdParams,
    query: z.object({ stream_token: z.string().optional() }),
    headers: z.object({ 'last-event-id': z.string().optional() }),
  },
  responses: { 200: sse('The stream'), ...COMMON },
});

export const tenantEventsRoute = createRoute({
  method: 'get',
  path: '/v1/events',
  summary: 'Server-Sent Events of every running pipeline of the tenant',
  security: streamSecurity,
  request: { query: z.object({ stream_token: z.string().optional(), tenant: z.string().optional() }) },
  responses: { 200: sse('The stream (never ends by itself)'), ...COMMON },
});

export const streamTokenRoute = createRoute({
  method: 'post',
  path: '/v1/stream-tokens',
  summary: 'A short-lived token that opens one event stream (for EventSource, which sends no header)',
  security,
  request: {
    body: {
      required: false,
      content: { 'application/json': { schema: z.object({ pipelineId: z.string().min(1).optional() }) } },
    },
  },
  responses: {
    201: json(z.object({ token: z.string(), expiresAt: z.string() }), 'Use as ?stream_token='),
    ...COMMON,
  },
});

export const usageRoute = createRoute({
  method: 'get',
  path: '/v1/usage',
  summary: 'Spend by tenant and stage (read only)',
  security,
  request: {
    query: z.object({
      since: z
        .string()
        .regex(/^\d{4}-\d{2}(-\d{2})?$/)
        .optional(),
      tenant: z.string().optional(),
    }),
  },
  responses: { 200: json(z.object({ tenants: z.array(z.looseObject({ tenant: z.string() })) }), 'Usage'), ...COMMON },
});

export const budgetsRoute = createRoute({
  method: 'get',
  path: '/v1/budgets',
  summary: 'Budgets for the current period (read only)',
  security,
  request: { query: z.object({ tenant: z.string().optional() }) },
  responses: {
    200: json(z.object({ budgets: z.array(z.looseObject({ tenant: z.string() })) }), 'Budgets'),
    503: problem('No tenant configuration'),
    ...COMMON,
  },
});
