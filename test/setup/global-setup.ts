/**
 * Starts ONE real Temporal dev server for the whole jest run (no mock of Temporal), or,
 * with REELFLOW_TEST_TEMPORAL_ADDRESS (and REELFLOW_TEST_TEMPORAL_NAMESPACE, default
 * `default`), uses that server as it is: nothing started, nothing stopped.
 * Tests read its address from TEMPORAL_ADDRESS and isolate themselves with their own
 * task queues. The CLI is found or built by the same code the dev stack uses.
 */
import path from 'node:path';
import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import { startLocalTemporal } from '../../tools/devstack/local-temporal';
import { checkExistingServer } from './existing-server';
import { startObjectStore } from '../../tools/devstack/object-store';
import { bundleWorkflowCode } from '@temporalio/worker';
import { writeFileSync } from 'node:fs';

export default async function globalSetup(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-test-'));
  // Bundle the workflows once for every test file (bundling is the slow part of Worker.create).
  const bundling = bundleWorkflowCode({
    workflowsPath: require.resolve('../../src/workflows'),
    logger: {
      info: () => undefined,
      warn: () => undefined,
      error: console.error,
      debug: () => undefined,
      trace: () => undefined,
      log: () => undefined,
    },
  }).then((bundle) => {
    const codePath = path.join(dir, 'workflow-bundle.js');
    writeFileSync(codePath, bundle.code);
    process.env.REELFLOW_TEST_BUNDLE = codePath;
  });
  await startTestObjectStore(dir);
  const existing = process.env.REELFLOW_TEST_TEMPORAL_ADDRESS;
  if (existing) {
    const namespace = process.env.REELFLOW_TEST_TEMPORAL_NAMESPACE ?? 'default';
    await checkExistingServer(existing, namespace);
    await bundling;
    process.env.TEMPORAL_ADDRESS = existing;
    process.env.TEMPORAL_NAMESPACE = namespace;
    process.env.REELFLOW_TEST_DIR = dir;
    process.stderr.write(`\nexisting Temporal server for tests: ${existing}, namespace ${namespace}\n`);
    return;
  }
  const server = await startLocalTemporal({
    dbFile: path.join(dir, 'temporal.db'),
    headless: true,
    logFile: path.join(dir, 'temporal.log'),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  await bundling;
  process.env.TEMPORAL_ADDRESS = server.address;
  process.env.TEMPORAL_NAMESPACE = server.namespace;
  process.env.REELFLOW_TEST_DIR = dir;
  process.stderr.write(`\ntemporal dev server for tests: ${server.address} (log: ${dir}/temporal.log)\n`);
  (globalThis as { __reelflowDevServer?: typeof server }).__reelflowDevServer = server;
}

/** The object store for the tests; without one (no binary, no Go) its tests fail saying so. */
async function startTestObjectStore(dir: string): Promise<void> {
  // The AWS SDK's notice that its 2027 releases need Node 22, once per process: noise in test output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const store = await startObjectStore({
    dataDir: path.join(dir, 's3'),
    logFile: path.join(dir, 'versitygw.log'),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (!store) return;
  process.env.REELFLOW_TEST_S3_ENDPOINT = store.endpoint;
  process.env.REELFLOW_TEST_S3_REGION = store.region;
  process.env.REELFLOW_TEST_S3_ACCESS_KEY = store.accessKeyId;
  process.env.REELFLOW_TEST_S3_SECRET_KEY = store.secretAccessKey;
  process.stderr.write(`\nobject store for tests: ${store.endpoint} (log: ${dir}/versitygw.log)\n`);
  (globalThis as { __reelflowObjectStore?: typeof store }).__reelflowObjectStore = store;
}
