/**
 * The tests' S3-compatible server (versitygw, started by test/setup/global-setup.ts): its
 * address and keys, a fresh bucket per test file, what a test reads back from it, and a
 * fault proxy in front of it that answers 500 or SlowDown, or holds requests, on demand.
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import type { ObjectStoreTarget } from '../../src/activities/archive-store';

export interface TestStore {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** The server global setup started; throws (no skip) when there is none. */
export function testStore(): TestStore {
  const endpoint = process.env.REELFLOW_TEST_S3_ENDPOINT;
  if (!endpoint) {
    throw new Error(
      'no S3-compatible server for the tests: global setup builds versitygw with Go (see its log line), or set REELFLOW_VERSITYGW to a binary',
    );
  }
  return {
    endpoint,
    region: process.env.REELFLOW_TEST_S3_REGION ?? 'us-east-1',
    accessKeyId: process.env.REELFLOW_TEST_S3_ACCESS_KEY!,
    secretAccessKey: process.env.REELFLOW_TEST_S3_SECRET_KEY!,
  };
}

export function s3Client(store: TestStore, endpoint = store.endpoint, maxAttempts = 3): S3Client {
  return new S3Client({
    endpoint,
    region: store.region,
    forcePathStyle: true,
    credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    maxAttempts,
  });
}

/** The variables a worker process or the CLI reach the store with. */
export function storeEnv(store: TestStore, bucket: string, prefix = 'archive'): Record<string, string> {
  return {
    REELFLOW_ARCHIVE_STORE: `s3://${bucket}/${prefix}`,
    AWS_ENDPOINT_URL_S3: store.endpoint,
    AWS_REGION: store.region,
    AWS_ACCESS_KEY_ID: store.accessKeyId,
    AWS_SECRET_ACCESS_KEY: store.secretAccessKey,
    REELFLOW_S3_FORCE_PATH_STYLE: '1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** A new bucket of its own for a test file. */
export async function newBucket(client: S3Client, what: string): Promise<string> {
  const bucket = `${what}-${randomUUID().slice(0, 8)}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return bucket;
}

export function target(client: S3Client, bucket: string, prefix = 'archive'): ObjectStoreTarget {
  return { client, bucket, prefix };
}

export async function keysIn(client: S3Client, bucket: string): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (listed.Contents ?? []).map((o) => o.Key!).sort();
}

export async function pendingUploads(client: S3Client, bucket: string): Promise<string[]> {
  const listed = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  return (listed.Uploads ?? []).map((u) => u.Key!);
}

export async function objectText(client: S3Client, bucket: string, key: string): Promise<string> {
  const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return got.Body!.transformToString();
}

export async function objectSha256(client: S3Client, bucket: string, key: string): Promise<string> {
  const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const hash = createHash('sha256');
  for await (const chunk of got.Body as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** What the fault proxy does to a request it matches. */
export type Fault = { status: 500 } | { status: 503; code: 'SlowDown' } | { hold: true };

export interface FaultProxy {
  url: string;
  /** The next `count` requests `match` picks get `fault`. */
  inject(match: (req: http.IncomingMessage) => boolean, fault: Fault, count: number): void;
  /** Requests answered with a fault so far. */
  faulted: number;
  /** Requests held so far (never answered until close). */
  held: number;
  /** Every request seen, as `METHOD /path` (no query). */
  seen: string[];
  /** The server-side encryption each request asked for (`x-amz-server-side-encryption`), in order. */
  encryption: (string | undefined)[];
  close(): Promise<void>;
}

const ERROR_XML = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

/** A plain HTTP proxy in front of the store (path-style requests pass through byte for byte). */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const up = new URL(upstream);
  const rules: { match: (req: http.IncomingMessage) => boolean; fault: Fault; left: number }[] = [];
  const heldSockets = new Set<import('node:net').Socket>();
  const proxy: FaultProxy = {
    url: '',
    faulted: 0,
    held: 0,
    seen: [],
    encryption: [],
    inject: (match, fault, count) => void rules.push({ match, fault, left: count }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of heldSockets) s.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = http.createServer((req, res) => {
    proxy.seen.push(`${req.method} ${(req.url ?? '').split('?')[0]}`);
    proxy.encryption.push(req.headers['x-amz-server-side-encryption'] as string | undefined);
    const rule = rules.find((r) => r.left > 0 && r.match(req));
    if (rule) {
      rule.left -= 1;
      if ('hold' in rule.fault) {
        proxy.held += 1;
        heldSockets.add(req.socket);
        return; // the body is never read, the answer never comes: an upload stuck mid-part
      }
      proxy.faulted += 1;
      const code = 'code' in rule.fault ? rule.fault.code : 'InternalError';
      req.resume();
      res.writeHead(rule.fault.status, { 'content-type': 'application/xml' });
      return void res.end(ERROR_XML(code, 'injected by the test'));
    }
    const out = http.request(
      { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/** An UploadPart (PUT with partNumber), a PutObject (PUT without), a CompleteMultipartUpload (POST uploadId). */
export const isUploadPart = (req: http.IncomingMessage) =>
  req.method === 'PUT' && /[?&]partNumber=/.test(req.url ?? '');
export const isComplete = (req: http.IncomingMessage) => req.method === 'POST' && /[?&]uploadId=/.test(req.url ?? '');
