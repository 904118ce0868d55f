/**
 * A real S3-compatible server for the tests and the dev stack: versitygw (Apache-2.0) with
 * its posix backend in a folder, built from Go modules into the project cache by the same
 * find-or-build as the Temporal CLI (./temporal-cli.ts). No mock of S3: the archive's
 * object-store tests talk to it over HTTP (docs/testing.md "Object store").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from './dev-server';
import { stopChild } from './server-process';
import { findOrBuildGoBinary, type GoBinary } from './temporal-cli';

export const VERSITYGW_BINARY: GoBinary = {
  label: 'versitygw',
  module: 'github.com/versity/versitygw/cmd/versitygw',
  version: 'v1.8.0',
  installName: 'versitygw',
  cachedName: 'versitygw',
  envVar: 'REELFLOW_VERSITYGW',
};

export interface ObjectStoreServer {
  /** e.g. http://127.0.0.1:41234 (path-style addressing). */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  pid: number;
  stop(): Promise<void>;
}

export interface ObjectStoreOptions {
  /** The posix backend's folder: one sub-folder per bucket. */
  dataDir: string;
  /** Buckets to create. */
  buckets?: string[];
  port?: number;
  /** Appends the server's output here; default: dropped. */
  logFile?: string;
  log?: (line: string) => void;
}

/** The root user's keys: a local test server's, never a real store's. */
const TEST_ACCESS_KEY = 'reelflow-test-access';
const TEST_SECRET_KEY = 'reelflow-test-secret-not-for-production';

export function testS3Client(
  server: Pick<ObjectStoreServer, 'endpoint' | 'region' | 'accessKeyId' | 'secretAccessKey'>,
) {
  return new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
}

async function waitUntilAnswering(client: S3Client, child: ChildProcess, endpoint: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`versitygw exited early (code ${child.exitCode})`);
    try {
      await client.send(new ListBucketsCommand({}));
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`versitygw did not answer on ${endpoint} within 30 s: ${String(last)}`);
}

/** Starts versitygw (found or built first); undefined when there is no binary and no Go to build one. */
export async function startObjectStore(opts: ObjectStoreOptions): Promise<ObjectStoreServer | undefined> {
  const found = findOrBuildGoBinary(VERSITYGW_BINARY, opts.log);
  if (!found) return undefined;
  const port = opts.port || (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;
  mkdirSync(opts.dataDir, { recursive: true });
  if (opts.logFile) mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = opts.logFile ? openSync(opts.logFile, 'a') : 'ignore';
  const args = ['--port', `127.0.0.1:${port}`, '--quiet', 'posix', opts.dataDir];
  const child = spawn(found.path, args, {
    stdio: ['ignore', out, out],
    env: { ...process.env, ROOT_ACCESS_KEY: TEST_ACCESS_KEY, ROOT_SECRET_KEY: TEST_SECRET_KEY },
  });
  const server: ObjectStoreServer = {
    endpoint,
    region: 'us-east-1',
    accessKeyId: TEST_ACCESS_KEY,
    secretAccessKey: TEST_SECRET_KEY,
    pid: child.pid ?? -1,
    stop: () => stopChild(child, 5_000),
  };
  const client = testS3Client(server);
  try {
    await waitUntilAnswering(client, child, endpoint);
    for (const bucket of opts.buckets ?? []) await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (err) {
    await server.stop();
    throw err;
  } finally {
    client.destroy();
  }
  return server;
}
