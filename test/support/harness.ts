/**
 * Test harness for pipelines: the REAL Temporal dev server (started by the global
 * setup), a real worker with the real activities, and the vendor emulator over HTTP.
 * Each harness uses its own task queue and archive folder.
 *
 * REELFLOW_TEST_CODEC=1 runs every harness with the payload codec on (a key of this
 * process), failures encrypted too: e.g. the failure-chain tests against encrypted histories.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, WorkflowHandle } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../src/activities';
import { parseWebhookAllowance } from '../../src/webhooks/allowance';
import { endpointUrlVariable } from '../../src/webhooks/secrets';
import { codecDataConverter } from '../../src/codec';
import { defaultBundlePath, ensureWorkflowBundle } from '../../src/workers/bundle';
import { DEFAULT_GETASSET_RATE_PER_SECOND } from '../../src/workers/config';
import { createReelflowWorkers } from '../../src/workers/worker';
import { buildCallbackUrl } from '../../src/callbacks/token';
import { startCallbackReceiver, type CallbackReceiver } from '../../src/callbacks/receiver';
import { startEmulator, type EmulatorOptions } from '../../src/emulator';
import { createVendorClient } from '../../src/vendor-api';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import type { TenantsConfig } from '../../src/tenants/config';
import type { ObjectStoreTarget } from '../../src/activities/archive-store';
import { statusQuery, type PipelineResult, type PipelineStatus } from '../../src/contract/messages';
import { videoPipeline } from '../../src/workflows';
import { API_KEY, USER_1, USER_2 } from './emulator';
import { until } from './poll';
import { connectTemporal } from '../../src/config/temporal-connection';

export const CALLBACK_SECRET = 'test-callback-secret-0123456789';
/** The default profile's webhook signing secret (whsec_ + base64 of 24 bytes). */
export const WEBHOOK_SECRET = `whsec_${Buffer.from('reelflow-test-webhook-key').toString('base64')}`;

export interface HarnessOptions {
  emulator?: EmulatorOptions;
  callbacks?: boolean;
  /** Client-side vendor timeouts; short so that delayed responses become ambiguous quickly. */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  getAssetRatePerSecond?: number;
  /** Credentials the emulator accepts and the worker uses (tests of secret hygiene pick distinctive ones). */
  apiKey?: string;
  accessToken?: string;
  /** false: no in-process workers (the test runs worker processes itself). */
  inProcessWorkers?: boolean;
  /** false: the main worker only, nobody polls the GetAsset queue (a backlog builds; `restartWorkers` adds it). */
  getAssetWorkers?: boolean;
  /** REELFLOW_ARCHIVE_STORE: the in-process workers archive to this object store (test/support/object-store.ts). */
  archiveStore?: ObjectStoreTarget;
  /** The worker's REELFLOW_TENANTS_FILE, parsed (docs/tenants.md). */
  tenants?: TenantsConfig;
  /** The client's and the workers' (e.g. the payload codec). */
  dataConverter?: DataConverter;
  /** The workers' own, when it differs from the client's (a strict codec's). */
  workerDataConverter?: DataConverter;
  /** REELFLOW_CODEC_STRICT=1 as the worker's activities see it (validateDefinition). */
  codecStrict?: boolean;
  /** The worker's start-up check verdicts (src/workers/startup-checks.ts); default: none failed. */
  vendorCheckFailed?: ActivityDeps['vendorCheckFailed'];
  /** Completion webhooks, as the worker's REELFLOW_NOTIFY_* would set them. */
  notify?: {
    /** REELFLOW_NOTIFY_ALLOW_PRIVATE; default 127.0.0.1 (where test receivers listen). */
    allowPrivate?: string;
    /** REELFLOW_NOTIFY_URL. */
    defaultUrl?: string;
    /** REELFLOW_ENDPOINT_<ID>_WEBHOOK_SECRET values and the URL prefix beside each (…_WEBHOOK_URL), by id. */
    endpointSecrets?: Record<string, { secrets: string; url: string }>;
    /**
     * REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL: what the profile's WEBHOOK_SECRET signs for besides the
     * default URL. Default none.
     */
    profileUrls?: string[];
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

const TEST_CODEC_KEYS = `test:${randomBytes(32).toString('base64')}`;

/** The codec's variables of REELFLOW_TEST_CODEC=1 (else none), for the processes a test spawns. */
export function testCodecEnv(): Record<string, string> {
  return process.env.REELFLOW_TEST_CODEC === '1' ? { REELFLOW_CODEC_KEYS: TEST_CODEC_KEYS } : {};
}

/** The converter of REELFLOW_TEST_CODEC=1 (else none). */
function envDataConverter(): DataConverter | undefined {
  return codecDataConverter(testCodecEnv());
}

/** What picks a worker's bundle (src/workers/bundle.ts): tracing, and the converter's failureConverterPath. */
export interface TestVariant {
  tracing?: boolean;
  dataConverter?: DataConverter | undefined;
}

/**
 * The bundle a worker of `variant` runs: the global setup's plain one, or the variant's
 * (built once per test run, beside it).
 */
export async function testBundle({ tracing = false, dataConverter }: TestVariant = {}): Promise<{ codePath: string }> {
  const { failureConverterPath, payloadConverterPath } = dataConverter ?? {};
  const codePath = process.env.REELFLOW_TEST_BUNDLE!;
  if (!tracing && !failureConverterPath && !payloadConverterPath) return { codePath };
  const variant = {
    tracing,
    ...(failureConverterPath ? { failureConverterPath } : {}),
    ...(payloadConverterPath ? { payloadConverterPath } : {}),
  };
  const outFile = path.join(path.dirname(codePath), path.basename(defaultBundlePath(variant)));
  return { codePath: (await ensureWorkflowBundle({ ...variant, outFile })).codePath };
}

export async function startHarness(opts: HarnessOptions = {}) {
  const address = process.env.TEMPORAL_ADDRESS!;
  const apiKey = opts.apiKey ?? API_KEY;
  const accessToken = opts.accessToken ?? USER_1;
  const emulator = await startEmulator({
    port: 0,
    apiKeys: [apiKey],
    accessTokens: [accessToken, USER_2],
    ...opts.emulator,
  });
  const taskQueue = `wf-${randomUUID()}`;
  const archiveRoot = mkdtempSync(path.join(os.tmpdir(), 'reelflow-archive-'));
  const connection = await connectTemporal({ address });
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const converter = opts.dataConverter ?? envDataConverter();
  const dataConverter = converter ? { dataConverter: converter } : {};
  const workerConverter = opts.workerDataConverter ?? converter;
  const client = new Client({ connection, namespace, ...dataConverter });
  const nativeConnection = await NativeConnection.connect({ address });
  let receiver: CallbackReceiver | undefined;
  if (opts.callbacks) {
    receiver = await startCallbackReceiver({
      host: '127.0.0.1',
      port: 0,
      secret: CALLBACK_SECRET,
      client,
      log: () => undefined,
    });
  }
  const vendor = createVendorClient({
    baseUrl: emulator.url,
    identityUrl: emulator.url,
    apiKey,
    accessToken,
    timeouts: { connectMs: 2_000, headersMs: 3_000, bodyMs: 3_000, ...opts.timeouts },
  });
  const activities = createActivities({
    vendorFor: (profile) => {
      if (profile !== 'default') throw new Error(`unknown profile ${profile}`);
      return vendor;
    },
    callbackUrlFor: receiver
      ? (workflowId, step, attempt, run) =>
          buildCallbackUrl(receiver.url, CALLBACK_SECRET, workflowId, step, attempt, run)
      : undefined,
    archiveRoot,
    archiveAllowPrivate: true, // the emulator serves media on 127.0.0.1
    ...(opts.archiveStore ? { archiveStore: opts.archiveStore } : {}),
    webhookSecretFor: (profile) =>
      profile === 'default'
        ? {
            secrets: WEBHOOK_SECRET,
            urls: opts.notify?.profileUrls ?? [],
            urlVariable: 'REELFLOW_PROFILE_DEFAULT_WEBHOOK_URL',
          }
        : undefined,
    endpointSecretFor: (id) => {
      const endpoint = opts.notify?.endpointSecrets?.[id];
      return endpoint && { secrets: endpoint.secrets, urls: [endpoint.url], urlVariable: endpointUrlVariable(id) };
    },
    webhookAllowPrivate: parseWebhookAllowance(opts.notify?.allowPrivate ?? '127.0.0.1'),
    ...(opts.notify?.defaultUrl ? { webhookDefaultUrl: opts.notify.defaultUrl } : {}),
    ...(opts.codecStrict ? { codecStrict: true } : {}),
    ...(opts.tenants ? { tenants: opts.tenants } : {}),
    ...(opts.vendorCheckFailed ? { vendorCheckFailed: opts.vendorCheckFailed } : {}),
  });
  const workflowBundle = await testBundle({ dataConverter: workerConverter });
  // The worker's own wiring: GetAsset on the profile's rate-limited queue, paced in process.
  const makeWorkers = async (getAssetWorkers = opts.getAssetWorkers ?? true) =>
    opts.inProcessWorkers === false
      ? []
      : [
          await createReelflowWorkers({
            connection: nativeConnection,
            namespace,
            config: {
              taskQueue,
              profiles: getAssetWorkers ? ['default'] : [],
              getAssetRatePerSecond: opts.getAssetRatePerSecond ?? DEFAULT_GETASSET_RATE_PER_SECOND,
              maxConcurrentActivities: 100,
              maxConcurrentWorkflowTasks: 40,
            },
            activities,
            workflowBundle,
            workerOptions: workerConverter ? { dataConverter: workerConverter } : {},
          }),
        ];
  let workers = await makeWorkers();
  let running = workers.map((w) => w.run());

  return {
    emulator,
    /** The worker's own vendor client (to read what the vendor answers, as the pipeline does). */
    vendor,
    client,
    connection,
    taskQueue,
    archiveRoot,
    receiver,
    /** Starts a pipeline on this harness's task queue, with the input reelflow's starters send. */
    start(definition: PipelineDefinitionInput, workflowId = `test-${randomUUID().slice(0, 8)}`) {
      // Against the local emulator: opt in to local media hosts, unless the test says otherwise.
      const options = { allowPrivateHosts: true, ...definition.options };
      return client.workflow.start(videoPipeline, {
        taskQueue,
        workflowId,
        args: [{ definition: { ...definition, options } }],
      });
    },
    async run(
      definition: PipelineDefinitionInput,
    ): Promise<{ handle: WorkflowHandle<typeof videoPipeline>; result: PipelineResult }> {
      const handle = await this.start(definition);
      return { handle, result: await handle.result() };
    },
    /** Stops the workers as a crash would leave them, then starts fresh ones (with or without GetAsset's). */
    async restartWorkers(getAssetWorkers = true) {
      workers.forEach((w) => w.shutdown());
      await Promise.allSettled(running);
      workers = await makeWorkers(getAssetWorkers);
      running = workers.map((w) => w.run());
    },
    async close() {
      workers.forEach((w) => w.shutdown());
      await Promise.allSettled(running);
      await receiver?.close();
      await vendor.close();
      await emulator.close();
      await nativeConnection.close();
      await connection.close();
    },
  };
}

const WORKER_MAIN = path.resolve(__dirname, '../../dist/workers/main.js');

/** What a worker process, and `reelflow doctor` beside it, need to serve this harness: Temporal, the emulator, the queue. */
export function workerEnv(h: Harness): Record<string, string | undefined> {
  return {
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
    VENDOR_BASE_URL: h.emulator.url,
    VENDOR_IDENTITY_URL: h.emulator.url,
    REELFLOW_PROFILE_DEFAULT_API_KEY: API_KEY,
    REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: USER_1,
    REELFLOW_TASK_QUEUE: h.taskQueue,
  };
}

/**
 * The real worker entry (dist/workers/main.js, built by `npm test` before jest starts)
 * as a child process serving this harness (start it with `inProcessWorkers: false`); its
 * output goes to `<archiveRoot>/<name>.log`. `env` adds or overrides variables.
 */
export function spawnWorker(h: Harness, name: string, env: Record<string, string> = {}): ChildProcess {
  if (!existsSync(WORKER_MAIN))
    throw new Error(`${WORKER_MAIN} missing: run \`npm test\` (it compiles first) or \`npm run build\``);
  const log = openSync(path.join(h.archiveRoot, `${name}.log`), 'a');
  const callbacks = h.receiver
    ? { REELFLOW_CALLBACK_BASE_URL: h.receiver.url, REELFLOW_CALLBACK_SECRET: CALLBACK_SECRET }
    : {};
  return spawn(process.execPath, [WORKER_MAIN], {
    stdio: ['ignore', log, log],
    env: {
      PATH: process.env.PATH,
      ...workerEnv(h),
      REELFLOW_ARCHIVE_DIR: h.archiveRoot,
      REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves media on 127.0.0.1
      ...testCodecEnv(),
      ...callbacks,
      ...env,
    },
  });
}

/** Definition pieces the tests share. */
export const EXAMPLE_IMAGE = 'https://media.example.com/products/hero.png';

export function fullDefinition(overrides: Partial<PipelineDefinitionInput> = {}): PipelineDefinitionInput {
  return {
    name: 'e2e',
    review: { media: [EXAMPLE_IMAGE, 'https://media.example.com/products/side.jpg'] },
    assets: {
      group: { name: `e2e-${randomUUID().slice(0, 8)}` },
      items: [
        { name: 'hero', fromReview: 0 },
        { name: 'bgm', url: 'https://media.example.com/audio/theme.mp3', type: 'Audio' },
      ],
      // The test emulator's assets end within 1 s; the default (5 s) is the real vendor's.
      firstReadAfter: '1s',
    },
    generation: {
      model: 'video-model-1',
      content: [
        { type: 'text', text: 'a product turning on a table' },
        { type: 'image_url', image_url: { url: 'ref:review/0' }, role: 'first_frame' },
        { type: 'audio_url', audio_url: { url: 'ref:asset/bgm' }, role: 'reference_audio' },
      ],
      ratio: '16:9',
      duration: 5,
    },
    erase: true,
    ...overrides,
  };
}

/** Polls the pipeline's `status` query until `pred` holds (tests wait on behaviour, not time). */
export async function waitForStatus(
  handle: WorkflowHandle,
  pred: (s: PipelineStatus) => boolean,
  ms = 60_000,
): Promise<PipelineStatus> {
  let last: PipelineStatus | undefined;
  return until(
    () => `a status to match; last: ${JSON.stringify(last)}`,
    async () => {
      last = await handle.query(statusQuery);
      return pred(last) && last;
    },
    { timeoutMs: ms },
  );
}

/** What `p` rejects with, typed as the expected class; any other outcome fails the test. */
export async function rejection<E extends Error>(p: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const outcome: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (outcome instanceof type) return outcome;
  throw new Error(`expected a ${type.name}, got ${outcome instanceof Error ? outcome.stack : String(outcome)}`);
}

/** POSTs JSON (as a vendor callback would) and returns the status code. */
export function post(url: string, body: unknown): Promise<number> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => (await r.arrayBuffer(), r.status));
}

/**
 * The pipeline's history replays on the current workflow code: what a worker does when it
 * answers a query for a workflow it no longer caches, or takes over after a restart.
 */
export async function expectReplays(handle: WorkflowHandle): Promise<void> {
  const history = await handle.fetchHistory();
  const converter = envDataConverter();
  // Under its own id: workflow code may derive ids from it (webhook delivery workflows do).
  await Worker.runReplayHistory(
    {
      workflowBundle: await testBundle({ dataConverter: converter }),
      ...(converter ? { dataConverter: converter } : {}),
    },
    history,
    handle.workflowId,
  );
}
