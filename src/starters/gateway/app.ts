/**
 * The gateway as a Hono app (docs/api.md): mount it in your own server, or run it with
 * `reelflow serve` (server.ts). It is a Temporal client only, never a worker, so it scales
 * apart from the workers. Order of the middleware: metrics, CORS (only when origins are
 * configured), the size limit, authentication, the per-token rate limit, then the routes.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import pino from 'pino';
import type { TenantsConfig } from '../../tenants/config';
import { bearerOf, tokenBook, verifyStreamToken } from './auth';
import type { GatewayConfig } from './config';
import type { ArchiveAccess, GatewayDeps, GatewayEnv } from './context';
import { gatewayMetrics } from './metrics';
import { ProblemError } from './problem';
import { rateLimiter } from './rate-limit';
import { archiveRoutes } from './routes-archive';
import { eventRoutes } from './routes-events';
import { pipelineRoutes } from './routes-pipelines';
import { tenancyRoutes } from './routes-tenancy';
import { StatusHub } from './status-hub';

export interface GatewayOptions {
  /** A connected Temporal client (connectClient); the gateway never closes it. */
  client: Client;
  config: GatewayConfig;
  taskQueue?: string;
  tenants?: TenantsConfig;
  archive?: ArchiveAccess;
  log?: pino.Logger;
  keepAliveMs?: number;
  tenantScanMs?: number;
}

export interface Gateway {
  /** The app: `yourHono.route('/', gateway.app)`, or `gateway.app.fetch` for any fetch-style server. */
  app: OpenAPIHono<GatewayEnv>;
  /** Stops every status poller (open streams end when their clients go). */
  close(): void;
}

export const OPENAPI_PATH = '/v1/openapi.json';
const PUBLIC_PATHS = new Set([OPENAPI_PATH, '/healthz', '/metrics']);
const STREAM_PATH = /^\/v1\/(pipelines\/([^/]+)\/)?events$/;

function authenticate(deps: GatewayDeps): MiddlewareHandler<GatewayEnv> {
  const book = tokenBook(deps.config.tokens);
  const limiter = rateLimiter(deps.config.ratePerSecond);
  return async (c, next) => {
    if (PUBLIC_PATHS.has(c.req.path) || c.req.method === 'OPTIONS') return next();
    const bearer = bearerOf(c.req.header('authorization'));
    let caller = bearer !== undefined ? book.lookup(bearer) : undefined;
    const stream = STREAM_PATH.exec(c.req.path);
    const streamToken = c.req.query('stream_token');
    if (!caller && stream && streamToken) {
      const pipelineId = stream[2] !== undefined ? decodeURIComponent(stream[2]) : undefined;
      caller = verifyStreamToken(deps.config.streamSecret, streamToken, pipelineId);
    }
    if (!caller) {
      throw new ProblemError(
        401,
        'unauthorized',
        'a valid bearer token is required',
        {},
        { 'www-authenticate': 'Bearer' },
      );
    }
    const wait = limiter.take(caller.name);
    if (wait > 0) {
      throw new ProblemError(
        429,
        'rate-limited',
        `over ${deps.config.ratePerSecond} requests/s for this token`,
        {},
        {
          'retry-after': String(wait),
        },
      );
    }
    c.set('caller', caller);
    return next();
  };
}

function countRequests(deps: GatewayDeps): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    await next();
    const route = c.req.routePath && c.req.routePath !== '/*' ? c.req.routePath : 'unmatched';
    deps.metrics.requests.inc({ route, method: c.req.method, status: String(c.res.status) });
  };
}

/** Validation failures of a request (params, query, headers, body) as a problem naming each field. */
const validationHook = (result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}): void => {
  if (result.success) return;
  const errors = (result.error?.issues ?? []).map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  throw new ProblemError(400, 'invalid-request', errors.map((e) => `${e.path || '(root)'}: ${e.message}`).join('; '), {
    errors,
  });
};

function onError(deps: GatewayDeps) {
  return (err: Error) => {
    if (err instanceof HTTPException) return err.getResponse();
    deps.log.error({ err: err.message }, 'request failed');
    return new ProblemError(500, 'internal', 'the gateway could not answer; see its log').getResponse();
  };
}

export function createGateway(opts: GatewayOptions): Gateway {
  const pollers = { count: () => 0 };
  const metrics = gatewayMetrics(() => pollers.count());
  const hub = new StatusHub(opts.client, { pollMs: opts.config.pollMs, onQuery: () => metrics.statusQueries.inc() });
  pollers.count = () => hub.pollers;
  const deps: GatewayDeps = {
    client: opts.client,
    config: opts.config,
    hub,
    metrics,
    log: opts.log ?? pino({ name: 'reelflow-gateway' }),
    ...(opts.taskQueue ? { taskQueue: opts.taskQueue } : {}),
    ...(opts.tenants ? { tenants: opts.tenants } : {}),
    ...(opts.archive ? { archive: opts.archive } : {}),
    ...(opts.keepAliveMs ? { keepAliveMs: opts.keepAliveMs } : {}),
    ...(opts.tenantScanMs ? { tenantScanMs: opts.tenantScanMs } : {}),
  };
  const app = new OpenAPIHono<GatewayEnv>({ defaultHook: validationHook });
  app.use('*', countRequests(deps));
  if (opts.config.corsOrigins.length > 0) {
    app.use(
      '/v1/*',
      cors({
        origin: opts.config.corsOrigins,
        allowHeaders: ['authorization', 'content-type', 'idempotency-key', 'last-event-id'],
      }),
    );
  }
  app.use(
    '*',
    bodyLimit({
      maxSize: opts.config.maxBodyBytes,
      onError: () => {
        throw new ProblemError(413, 'too-large', `request bodies are limited to ${opts.config.maxBodyBytes} bytes`);
      },
    }),
  );
  app.use('*', authenticate(deps));
  pipelineRoutes(app, deps);
  eventRoutes(app, deps);
  tenancyRoutes(app, deps);
  archiveRoutes(app, deps);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'streamToken', {
    type: 'apiKey',
    in: 'query',
    name: 'stream_token',
    description: 'A short-lived token from POST /v1/stream-tokens; event streams only',
  });
  app.doc31(OPENAPI_PATH, { openapi: '3.1.0', info: { title: 'reelflow gateway', version: 'v1' } });
  app.get('/healthz', async (c) => {
    try {
      await opts.client.withDeadline(Date.now() + 3_000, () => opts.client.workflowService.getSystemInfo({}));
      return c.json({ ready: true });
    } catch {
      return c.json({ ready: false, reason: 'Temporal is not reachable' }, 503);
    }
  });
  app.get('/metrics', async (c) =>
    c.text(await metrics.registry.metrics(), 200, { 'content-type': metrics.registry.contentType }),
  );
  app.notFound(() => new ProblemError(404, 'not-found', 'no such route').getResponse());
  app.onError(onError(deps));
  return { app, close: () => hub.close() };
}
