/**
 * The GetAsset limit as the vendor counts it: 60 GetAsset scheduled at once, through the
 * real workers (server-side queue limit + the per-process pacer) against the emulator;
 * no 1-s window of the emulator's request log may hold more than 10 of them.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { busiestWindow } from '../../tools/bench/rate-window';
import { createActivities } from '../../src/activities';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { createVendorClient, type VendorClient } from '../../src/vendor-api';
import { DEFAULT_GETASSET_RATE_PER_SECOND } from '../../src/workers/config';
import { createReelflowWorkers, type ReelflowWorkers } from '../../src/workers/worker';
import { API_KEY, USER_1 } from '../support/emulator';
import { connectTemporal } from '../../src/config/temporal-connection';

const address = process.env.TEMPORAL_ADDRESS!;
const BURST = 60;

let emulator: RunningEmulator;
let vendor: VendorClient;
let nativeConnection: NativeConnection;
let connection: Connection;
let client: Client;
let assetId: string;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, apiKeys: [API_KEY], accessTokens: [USER_1] });
  vendor = createVendorClient({ baseUrl: emulator.url, identityUrl: emulator.url, accessToken: USER_1 });
  const group = await vendor.assets.createAssetGroup({ Name: 'burst' });
  assetId = (
    await vendor.assets.createAsset({
      GroupId: group.Id,
      URL: 'https://media.example.com/burst.png',
      AssetType: 'Image',
      Name: 'burst',
    })
  ).Id;
  nativeConnection = await NativeConnection.connect({ address });
  connection = await connectTemporal({ address });
  client = new Client({ connection });
});
afterAll(async () => {
  await connection?.close();
  await nativeConnection?.close();
  await vendor?.close();
  await emulator?.close();
});

async function workersFor(
  taskQueue: string,
  identity: string,
  log: (l: string) => void,
  connection = nativeConnection,
): Promise<ReelflowWorkers> {
  return createReelflowWorkers({
    connection,
    config: {
      taskQueue,
      profiles: ['default'],
      getAssetRatePerSecond: DEFAULT_GETASSET_RATE_PER_SECOND,
      maxConcurrentActivities: 20,
      maxConcurrentWorkflowTasks: 2,
    },
    activities: createActivities({
      vendorFor: () => vendor,
      archiveRoot: mkdtempSync(path.join(os.tmpdir(), 'reelflow-burst-')),
    }),
    workflowsPath: require.resolve('./worker-workflows'),
    workerOptions: { identity },
    log,
  });
}

async function burstWindow(taskQueue: string): Promise<number> {
  const since = emulator.inspect().requests.at(-1)?.seq ?? 0;
  const n = await client.workflow.execute('getAssetBurst', {
    taskQueue,
    workflowId: `${taskQueue}.burst`,
    args: ['default', assetId, BURST],
  });
  expect(n).toBe(BURST);
  const calls = emulator.inspect().requests.filter((r) => r.seq > since && r.endpoint === 'assets.GetAsset');
  expect(calls).toHaveLength(BURST); // each answered at the first attempt: no 429, no retry
  expect(calls.every((r) => r.status === 200)).toBe(true);
  return busiestWindow(calls.map((r) => Date.parse(r.at))).count;
}

test(`one worker process: ${BURST} GetAsset at once never put more than 10 in one vendor second`, async () => {
  const taskQueue = `burst1-${process.pid}-${Date.now()}`;
  const workers = await workersFor(taskQueue, `burst-solo-${process.pid}`, () => undefined);
  const running = workers.run();
  try {
    expect(await burstWindow(taskQueue)).toBeLessThanOrEqual(10);
  } finally {
    workers.shutdown();
    await running;
  }
});

test(`two worker processes share the rate: ${BURST} GetAsset at once, still at most 10 in one vendor second`, async () => {
  const taskQueue = `burst2-${process.pid}-${Date.now()}`;
  const logs: string[] = [];
  // A second process: its own connection (one connection cannot carry two workers of one queue).
  const otherConnection = await NativeConnection.connect({ address });
  const a = await workersFor(taskQueue, `burst-a-${process.pid}`, (l) => logs.push(`a: ${l}`));
  const runA = a.run();
  let b: ReelflowWorkers | undefined;
  let runB: Promise<void> | undefined;
  try {
    b = await workersFor(taskQueue, `burst-b-${process.pid}`, (l) => logs.push(`b: ${l}`), otherConnection);
    runB = b.run();
    // Each process learns of the other from the server's poller list (refreshed every few seconds).
    const deadline = Date.now() + 30_000;
    const bothKnow = () => ['a', 'b'].every((w) => logs.some((l) => l.startsWith(`${w}: getAsset default: 2 worker`)));
    while (!bothKnow() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(bothKnow()).toBe(true);
    expect(await burstWindow(taskQueue)).toBeLessThanOrEqual(10);
  } finally {
    a.shutdown();
    b?.shutdown();
    await Promise.all([runA, runB]);
    await otherConnection.close();
  }
});
