/** What every route handler reaches: the gateway's dependencies and the request's caller. */
import type { S3Client } from '@aws-sdk/client-s3';
import { Client } from '@temporalio/client';
import type pino from 'pino';
import type { TenantsConfig } from '../../tenants/config';
import type { ArchivedFile } from '../../contract/messages';
import type { Caller, GatewayConfig } from './config';
import type { GatewayMetrics } from './metrics';
import type { StatusHub } from './status-hub';

/**
 * Where an archived file is read from (docs/api.md, "Routes"): a file in an object
 * store by a redirect to a GET presigned with `s3` (default: a client from this process's
 * AWS_* variables); a file on a worker's disk through that worker's archive server (`url`,
 * `token`, proxied). `presign` replaces the object-store step for another backend.
 */
export interface ArchiveAccess {
  url?: string;
  token?: string;
  s3?: S3Client | (() => S3Client);
  presign?: (file: ArchivedFile, pipelineId: string) => Promise<string | undefined>;
}

export interface GatewayDeps {
  client: Client;
  config: GatewayConfig;
  hub: StatusHub;
  metrics: GatewayMetrics;
  log: pino.Logger;
  /** Task queue pipelines start on (default "reelflow"). */
  taskQueue?: string;
  tenants?: TenantsConfig;
  archive?: ArchiveAccess;
  /** Keep-alive comment interval on event streams (default 15 s). */
  keepAliveMs?: number;
  /** How often the tenant-wide stream looks for new running pipelines (default 2 s). */
  tenantScanMs?: number;
}

export type GatewayEnv = { Variables: { caller: Caller } };

const byName = new WeakMap<Client, Map<string, Client>>();

/**
 * A client whose identity names the token: Temporal records it on the events an action
 * adds (start, cancel request, Update accepted), so the history says who did it without
 * any change to the workflow's commands.
 */
export function clientFor(base: Client, caller: Caller): Client {
  const cache = byName.get(base) ?? new Map<string, Client>();
  byName.set(base, cache);
  let c = cache.get(caller.name);
  if (!c) {
    c = new Client({
      connection: base.connection,
      namespace: base.options.namespace,
      dataConverter: base.options.dataConverter,
      identity: `reelflow-gateway:${caller.name}`,
    });
    cache.set(caller.name, c);
  }
  return c;
}
