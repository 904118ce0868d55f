/**
 * `reelflow serve [--host h] [--port p]`: the HTTP API and live progress (docs/api.md) until
 * Ctrl-C. A Temporal client only: it starts, reads and streams pipelines, and runs no
 * workflow or activity. Configured by REELFLOW_GATEWAY_* (src/gateway/config.ts).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3Client } from '../../../config/object-store';
import { gatewayConfigFromEnv } from '../../gateway/config';
import { startGateway } from '../../gateway/server';
import { loadTenantsConfig } from '../../../tenants/config';
import { EXIT } from '../output';
import { untilAborted } from './codec-server';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';

export const DEFAULT_GATEWAY_PORT = 8080;

function portOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_GATEWAY_PORT;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`option --port: "${value}" is not a port (0-65535)`, '--port', 'serve');
  }
  return Number(value);
}

/** The S3 client that presigns archived objects (AWS_* variables), made on first use. */
function s3Of(env: NodeJS.ProcessEnv): () => S3Client {
  let client: S3Client | undefined;
  return () => (client ??= createS3Client(env));
}

export const serve: CommandFn = async (ctx, session) => {
  const { env, signal } = ctx.io;
  const config = gatewayConfigFromEnv(env);
  const host = ctx.str('host') ?? env.REELFLOW_GATEWAY_HOST ?? '127.0.0.1';
  const port = portOf(ctx.str('port') ?? env.REELFLOW_GATEWAY_PORT);
  const tenantsFile = env.REELFLOW_TENANTS_FILE?.trim();
  const archiveUrl = env.REELFLOW_ARCHIVE_URL?.trim();
  const archiveToken = env.REELFLOW_ARCHIVE_TOKEN?.trim();
  const gateway = await startGateway({
    client: await session.client(),
    config,
    host,
    port,
    ...(env.REELFLOW_TASK_QUEUE ? { taskQueue: env.REELFLOW_TASK_QUEUE } : {}),
    ...(tenantsFile ? { tenants: loadTenantsConfig(tenantsFile) } : {}),
    archive: { ...(archiveUrl && archiveToken ? { url: archiveUrl, token: archiveToken } : {}), s3: s3Of(env) },
  });
  ctx.emit({ url: gateway.url, tokens: config.tokens.length, cors: config.corsOrigins }, () => [
    `reelflow gateway listening on ${gateway.url} (API under /v1, OpenAPI at /v1/openapi.json)`,
    `${config.tokens.length} token(s); CORS ${config.corsOrigins.length ? config.corsOrigins.join(', ') : 'off'}`,
  ]);
  try {
    await untilAborted(signal);
  } finally {
    await gateway.stop();
  }
  return EXIT.ok;
};
