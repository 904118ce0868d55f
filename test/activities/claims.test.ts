/**
 * inspectOfferedTask in the SDK's activity harness, against the emulator over HTTP and the
 * real dev server's visibility (the search attribute ReelflowVendorTaskIds); readFacts on
 * answers of either shape.
 */
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createClaimActivities, ofChain, readFacts } from '../../src/activities/claims';
import { QuerySpacing } from '../../src/activities/query-spacing';
import { createVendorActivities } from '../../src/activities/vendor';
import type { InspectOfferedTaskInput, OfferedTaskFacts } from '../../src/contract/offers';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { createVendorClient, type VendorClient } from '../../src/vendor-api';
import { VENDOR_TASK_IDS } from '../../src/contract/search-attributes';
import { API_KEY, USER_1 } from '../support/emulator';
import { until } from '../support/poll';
import { connectTemporal } from '../../src/config/temporal-connection';

let emulator: RunningEmulator;
let vendor: VendorClient;
let connection: Connection;
let client: Client;
let env: MockActivityEnvironment;
const { inspectOfferedTask } = createClaimActivities({ vendorFor: () => vendor });
const taskQueue = `claims-${process.pid}-${Date.now()}`; // no worker polls it: the workflows only hold claims

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  vendor = createVendorClient({
    baseUrl: emulator.url,
    identityUrl: emulator.url,
    apiKey: API_KEY,
    accessToken: USER_1,
  });
  connection = await connectTemporal({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  env = new MockActivityEnvironment(undefined, { client, logger: new DefaultLogger('ERROR') });
});

afterAll(async () => {
  await vendor?.close();
  await emulator?.close();
  await connection?.close();
});

const inspect = (input: InspectOfferedTaskInput): Promise<OfferedTaskFacts> => env.run(inspectOfferedTask, input);

async function claim(workflowId: string, taskId: string): Promise<void> {
  await client.workflow.start('claimsHolder', {
    taskQueue,
    workflowId,
    workflowExecutionTimeout: '2m',
    typedSearchAttributes: [{ key: VENDOR_TASK_IDS, value: [taskId] }],
  });
}

test("the vendor's answer and the other pipelines that claim the task; the asking pipeline is excluded", async () => {
  const before = Date.now();
  const { id } = await vendor.generation.create({
    model: 'video-model-7',
    content: [{ type: 'text', text: 'claims test' }],
  });
  const mine = `${taskQueue}.mine`;
  const other = `${taskQueue}.other`;
  await claim(mine, id);
  await claim(other, id);
  try {
    // Visibility is eventually consistent: the other pipeline's claim shows up within moments.
    const facts = await until(
      'the other pipeline to claim the task',
      async () => {
        const seen = await inspect({ profile: 'default', kind: 'generation', taskId: id, exclude: [mine] });
        return seen.claimedBy.length > 0 && seen;
      },
      { timeoutMs: 10_000 },
    );
    expect(facts).toMatchObject({ found: true, id, model: 'video-model-7', claimedBy: [other] });
    expect(facts.createdAtSec! * 1000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(facts.createdAtSec! * 1000).toBeLessThanOrEqual(Date.now());
    const excluded = await inspect({ profile: 'default', kind: 'generation', taskId: id, exclude: [mine, other] });
    expect(excluded.claimedBy).toEqual([]);
  } finally {
    await Promise.all([mine, other].map((w) => client.workflow.getHandle(w).terminate('test done')));
  }
});

test('under its own workflow id, only its own run chain is excluded: an earlier pipeline of that id claims', async () => {
  const { id } = await vendor.generation.create({ model: 'video-model-7', content: [{ type: 'text', text: 'reuse' }] });
  const reused = `${taskQueue}.reused`;
  const firstStart = await client.workflow.start('claimsHolder', {
    taskQueue,
    workflowId: reused,
    workflowExecutionTimeout: '2m',
    typedSearchAttributes: [{ key: VENDOR_TASK_IDS, value: [id] }],
  });
  const run1 = firstStart.firstExecutionRunId;
  await client.workflow.getHandle(reused).terminate('the earlier pipeline ended');
  const run2 = (await client.workflow.start('claimsHolder', { taskQueue, workflowId: reused })).firstExecutionRunId;
  try {
    const asRun2 = () =>
      inspect({
        profile: 'default',
        kind: 'generation',
        taskId: id,
        exclude: [reused],
        chain: { workflowId: reused, firstRunId: run2 },
      });
    let facts = await asRun2();
    for (let i = 0; i < 50 && facts.claimedBy.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      facts = await asRun2();
    }
    expect(facts.claimedBy).toEqual([`${reused} (an earlier run, ${run1})`]);
    // The earlier run asking for itself excludes its own claim; without a chain, as before, the id is excluded.
    const asRun1 = await inspect({
      profile: 'default',
      kind: 'generation',
      taskId: id,
      exclude: [reused],
      chain: { workflowId: reused, firstRunId: run1 },
    });
    expect(asRun1.claimedBy).toEqual([]);
    expect(
      (await inspect({ profile: 'default', kind: 'generation', taskId: id, exclude: [reused] })).claimedBy,
    ).toEqual([]);
  } finally {
    await client.workflow.getHandle(reused).terminate('test done');
  }
});

test("ofChain: by first run id where listed, else by start against the chain's first run", () => {
  const chain = { workflowId: 'wf', firstRunId: 'run-b' };
  const at = (ms: number) => new Date(ms);
  expect(ofChain({ runId: 'run-b', startTime: at(0) }, chain, 1_000)).toBe(true);
  expect(ofChain({ runId: 'run-c', startTime: at(0), raw: { firstRunId: 'run-b' } }, chain, 1_000)).toBe(true);
  expect(ofChain({ runId: 'run-c', startTime: at(5_000), raw: { firstRunId: 'run-a' } }, chain, 1_000)).toBe(false);
  expect(ofChain({ runId: 'run-a', startTime: at(500) }, chain, 1_000)).toBe(false);
  expect(ofChain({ runId: 'run-c', startTime: at(1_000) }, chain, 1_000)).toBe(true);
  expect(ofChain({ runId: 'run-a', startTime: at(500) }, chain, undefined)).toBe(true);
});

test('an id the vendor does not know: not found, with its words', async () => {
  const facts = await inspect({ profile: 'default', kind: 'erase', taskId: 'erase-nope', exclude: [] });
  expect(facts).toEqual({ found: false, notFound: expect.stringMatching(/404/), claimedBy: [] });
});

test('an id that could leave the query literal is refused before any call', async () => {
  const requests = emulator.inspect().requests.length;
  await expect(
    inspect({ profile: 'default', kind: 'generation', taskId: "x' OR WorkflowId != '", exclude: [] }),
  ).rejects.toThrow(/taskId: not a vendor task id/);
  expect(emulator.inspect().requests.length).toBe(requests);
});

test('readFacts takes each field only when its type is right, in our shape or the upstream one', () => {
  expect(
    readFacts('generation', {
      id: 'g',
      status: 'succeeded',
      model: 'm',
      created_at: 1_700_000_000,
      content: { video_url: 'u' },
    }),
  ).toEqual({
    id: 'g',
    model: 'm',
    createdAtSec: 1_700_000_000,
  });
  expect(readFacts('generation', { id: 7, model: null, created_at: '1700000000' })).toEqual({});
  expect(readFacts('generation', { id: 'g', created_at: 1_700_000_000_123 })).toEqual({
    id: 'g',
    createdAtSec: 1_700_000_000,
  });
  expect(readFacts('erase', { task_id: 'e', request_id: 'r', status: 'SUCCESS' })).toEqual({ id: 'e' });
  expect(
    readFacts('review', {
      task_id: 'r',
      total_count: 2,
      result: { items: [{ source_url: 'a' }, { source_url: 3 }, null] },
    }),
  ).toEqual({ id: 'r', itemCount: 2, sourceUrls: ['a'] });
});

// One process shares its spacing; two processes each have their own, and the check holds its
// result until the stage's next query may follow.
const shared = new QuerySpacing();
test.each([
  ['on the same worker', shared, shared],
  ['on another worker', new QuerySpacing(), new QuerySpacing()],
])("a check of an offered review task, then the stage's own query of it %s: 1 s apart", async (_where, a, b) => {
  const claims = createClaimActivities({ vendorFor: () => vendor }, a);
  const stage = createVendorActivities({ vendorFor: () => vendor, archiveRoot: '/nonexistent' }, b);
  const run = <A, R>(fn: (input: A) => Promise<R>, input: A): Promise<R> => env.run(fn, input);
  const { taskId } = await run(stage.reviewSubmit, {
    profile: 'default',
    urls: ['https://cdn.example.com/offered.png'],
    assetType: 'Image',
  });
  const limited = () => emulator.inspect().counters.rateLimited429['review.get'] ?? 0;
  const before = limited();
  const facts = await run(claims.inspectOfferedTask, { profile: 'default', kind: 'review', taskId, exclude: [] });
  expect(facts.found).toBe(true);
  const task = await run(stage.reviewGetTask, { profile: 'default', taskId });
  expect(task.taskId).toBe(taskId);
  expect(limited()).toBe(before);
});
