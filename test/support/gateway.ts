/**
 * A gateway for tests: the real dev server and worker of a harness (test/support/harness.ts)
 * with two tenants, and `reelflow serve`'s listener over it, holding one token per tenant and
 * one admin token.
 */
import { randomUUID } from 'node:crypto';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { parseTenantsConfig } from '../../src/tenants/config';
import { startGateway, type RunningGateway } from '../../src/starters/gateway/server';
import type { GatewayConfig } from '../../src/starters/gateway/config';
import type { EmulatorOptions } from '../../src/emulator';
import type { ArchiveAccess } from '../../src/starters/gateway/context';
import { startArchiveServer } from '../../src/workers/archive-server';
import { startHarness, type Harness } from './harness';
import { newBucket, s3Client, target, testStore } from './object-store';

export interface GatewayFixture {
  h: Harness;
  gw: RunningGateway;
  tenants: { a: string; b: string };
  tokens: { a: string; b: string; admin: string };
  /** fetch against the gateway with a bearer token. */
  call(token: string | undefined, path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export const token = () => `tok-${randomUUID()}-${randomUUID()}`;

/** A generation-only pipeline (the emulator serves it in about a second). */
export function quickDefinition(extra: Partial<PipelineDefinitionInput> = {}): PipelineDefinitionInput {
  return {
    name: 'gw',
    generation: { model: 'video-model-1', content: [{ type: 'text', text: 'gateway test' }] },
    erase: true,
    options: { allowPrivateHosts: true },
    ...extra,
  };
}

/** A bucket of its own on the test S3 server (test/support/object-store.ts). */
async function objectStore() {
  const client = s3Client(testStore());
  return { target: target(client, await newBucket(client, 'gateway')) };
}

export async function startGatewayFixture(
  opts: {
    emulator?: EmulatorOptions;
    config?: Partial<GatewayConfig>;
    /**
     * `server`: the worker's archive server on the harness's archive folder; `object-store`:
     * the worker archives to a bucket of the test S3 server, which the gateway presigns for.
     */
    archive?: 'server' | 'object-store';
  } = {},
): Promise<GatewayFixture> {
  const tag = randomUUID().slice(0, 6);
  const tenants = { a: `alpha-${tag}`, b: `beta-${tag}` };
  const tenantsConfig = parseTenantsConfig({ tenants: { [tenants.a]: {}, [tenants.b]: {} } });
  const store = opts.archive === 'object-store' ? await objectStore() : undefined;
  const h = await startHarness({
    tenants: tenantsConfig,
    ...(opts.emulator ? { emulator: opts.emulator } : {}),
    ...(store ? { archiveStore: store.target } : {}),
  });
  const tokens = { a: token(), b: token(), admin: token() };
  const config: GatewayConfig = {
    tokens: [
      { name: 'alpha-ci', token: tokens.a, tenant: tenants.a },
      { name: 'beta-ci', token: tokens.b, tenant: tenants.b },
      { name: 'ops', token: tokens.admin, admin: true },
    ],
    ratePerSecond: 1000,
    maxBodyBytes: 1024 * 1024,
    corsOrigins: [],
    streamSecret: Buffer.from(randomUUID() + randomUUID()),
    pollMs: 200,
    ...opts.config,
  };
  const archiveToken = token();
  const archiveServer =
    opts.archive === 'server'
      ? await startArchiveServer({ root: h.archiveRoot, token: archiveToken, host: '127.0.0.1', port: 0 })
      : undefined;
  const archive: ArchiveAccess | undefined = archiveServer
    ? { url: archiveServer.url, token: archiveToken }
    : store && { s3: store.target.client };
  const gw = await startGateway({
    ...(archive ? { archive } : {}),
    client: h.client,
    config,
    host: '127.0.0.1',
    port: 0,
    taskQueue: h.taskQueue,
    tenants: tenantsConfig,
    keepAliveMs: 500,
    tenantScanMs: 300,
    log: (await import('pino')).default({ level: 'silent' }),
  });
  return {
    h,
    gw,
    tenants,
    tokens,
    call: (tok, path, init = {}) =>
      fetch(`${gw.url}${path}`, {
        ...init,
        headers: {
          ...(tok ? { authorization: `Bearer ${tok}` } : {}),
          ...(init.body ? { 'content-type': 'application/json' } : {}),
          ...(init.headers as Record<string, string> | undefined),
        },
      }),
    async close() {
      await gw.stop();
      await archiveServer?.close();
      await h.close();
    },
  };
}

/** Reads an SSE response to its end (or until `stopWhen`), parsed into events. */
export async function readEvents(
  res: Response,
  stopWhen: (e: SseEvent) => boolean = () => false,
): Promise<{ events: SseEvent[]; comments: number }> {
  const events: SseEvent[] = [];
  let comments = 0;
  const decoder = new TextDecoder();
  let buf = '';
  const reader = res.body!.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value as Uint8Array, { stream: true });
    let cut: number;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      if (block.startsWith(':')) {
        comments++;
        continue;
      }
      const e: SseEvent = { event: 'message', data: '' };
      for (const line of block.split('\n')) {
        const [k, ...rest] = line.split(':');
        const v = rest.join(':').replace(/^ /, '');
        if (k === 'id') e.id = v;
        else if (k === 'event') e.event = v;
        else if (k === 'data') e.data += v;
      }
      events.push(e);
      if (stopWhen(e)) {
        await reader.cancel();
        return { events, comments };
      }
    }
  }
  return { events, comments };
}

export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}
