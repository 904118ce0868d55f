/**
 * Live progress as Server-Sent Events (docs/api.md, "Events"): `status` events, each a full
 * snapshot whose `id` is its version, then one `end` event, after which the stream closes. A
 * `Last-Event-ID` skips what the client has seen; a keep-alive comment keeps proxies from
 * closing an idle stream. The tenant-wide stream follows every running pipeline of a tenant.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { PipelineChange } from '../client/watch';
import { buildListQuery } from '../client/pipeline-client';
import type { GatewayDeps, GatewayEnv } from './context';
import { ownedPipeline, tenantScope } from './access';
import * as R from './schemas';

const DEFAULT_KEEP_ALIVE_MS = 15_000;

/** The version a client last saw, from Last-Event-ID (a pipeline stream's ids are bare versions). */
export function lastSeenVersion(header: string | undefined): number {
  const n = Number(header?.split(':').pop());
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

function eventOf(c: PipelineChange, tenantWide: boolean) {
  return {
    id: tenantWide ? `${c.pipelineId}:${c.version}` : String(c.version),
    event: c.kind,
    data: JSON.stringify(c),
  };
}

/** Streams until `run` resolves or the client goes; keep-alive comments meanwhile; counts the open stream. */
function sse(
  c: Context<GatewayEnv>,
  deps: GatewayDeps,
  kind: 'pipeline' | 'tenant',
  run: (stream: SSEStreamingApi) => Promise<void>,
) {
  return streamSSE(c, async (stream) => {
    deps.metrics.openStreams.inc({ kind });
    const keepAlive = setInterval(
      () => void stream.write(': keep-alive\n\n').catch(() => undefined),
      deps.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    );
    try {
      await run(stream);
    } finally {
      clearInterval(keepAlive);
      deps.metrics.openStreams.dec({ kind });
    }
  });
}

/** Resolves when the client has gone. */
const gone = (stream: SSEStreamingApi) => new Promise<void>((resolve) => stream.onAbort(resolve));

export function eventRoutes(app: OpenAPIHono<GatewayEnv>, deps: GatewayDeps): void {
  app.openapi(R.pipelineEventsRoute, async (c) => {
    const { id } = c.req.valid('param');
    await ownedPipeline(deps.client, c.get('caller'), id);
    const seen = lastSeenVersion(c.req.header('last-event-id'));
    return sse(c, deps, 'pipeline', async (stream) => {
      let unsubscribe = () => undefined as void;
      const ended = new Promise<void>((resolve) => {
        let writing = Promise.resolve();
        unsubscribe = deps.hub.subscribe(id, {
          change: (change) => {
            if (change.version <= seen && change.kind !== 'end') return;
            writing = writing.then(() => stream.writeSSE(eventOf(change, false)));
            if (change.kind === 'end') void writing.then(resolve, resolve);
          },
          error: () => resolve(),
        });
      });
      await Promise.race([ended, gone(stream)]);
      unsubscribe();
    });
  });

  app.openapi(R.tenantEventsRoute, (c) => {
    const caller = c.get('caller');
    const tenant = tenantScope(caller, c.req.valid('query').tenant);
    const query = buildListQuery({ status: 'running', ...(tenant !== undefined ? { tenant } : {}) });
    return sse(c, deps, 'tenant', async (stream) => {
      const subscribed = new Map<string, () => void>();
      let writing = Promise.resolve();
      const follow = (id: string) => {
        subscribed.set(
          id,
          deps.hub.subscribe(id, {
            change: (change) => {
              writing = writing.then(() => stream.writeSSE(eventOf(change, true)));
              if (change.kind === 'end') queueMicrotask(() => subscribed.get(id)?.());
            },
            error: () => subscribed.get(id)?.(),
          }),
        );
      };
      const scan = async () => {
        for await (const wf of deps.client.workflow.list({ query })) {
          if (!subscribed.has(wf.workflowId)) follow(wf.workflowId);
        }
      };
      const timer = setInterval(() => void scan().catch(() => undefined), deps.tenantScanMs ?? 2_000);
      try {
        await scan().catch(() => undefined);
        await gone(stream);
      } finally {
        clearInterval(timer);
        for (const off of subscribed.values()) off();
      }
    });
  });
}
