/**
 * Every fault class of the emulator against a real pipeline: the pipeline ends as it
 * should, and the emulator's inspection shows no duplicate vendor task.
 */
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { resolveCreateUpdate, statusQuery } from '../../src/contract/messages';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { fillGroup } from '../../tools/bench/fill-group';
import { USER_1 } from '../support/emulator';
import { rejection, startHarness, type Harness, waitForStatus } from '../support/harness';

const quick = {
  generationQueuedMs: 300,
  generationRunningMs: 1_000,
  assetProcessingMs: 800,
  eraseInProgressMs: 800,
  reviewProcessingMs: 800,
};

const generationOnly = (options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'fault test' }] },
  options: { archive: false, ...options },
});
const generationAndErase = (options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  ...generationOnly(options),
  erase: true,
});

describe('faults with callbacks on', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ callbacks: true, emulator: { profile: quick } });
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.emulator.reset());

  test('generation create answered after the client timed out: reconciled from the callback, one task', async () => {
    h.emulator.setFaults({ 'generation.create': { delayAfterCreate: { next: 1, ms: 6_000 } } });
    const { result } = await h.run(generationOnly({ callbacks: true, deadlines: { callbackGrace: '20s' } }));
    const s = h.emulator.inspect();
    expect(s.generationTasks).toHaveLength(1);
    expect(result.generation?.taskId).toBe(s.generationTasks[0].id);
    expect(result.vendorTasks.find((t) => t.kind === 'generation')?.via).toBe('callback');
  });

  test('erase create answered 500 after creating: reconciled from the callback, one task', async () => {
    h.emulator.setFaults({ 'erase.create': { error500AfterCreate: { next: 1 } } });
    const { result } = await h.run(generationAndErase({ callbacks: true }));
    const s = h.emulator.inspect();
    expect(s.eraseTasks).toHaveLength(1);
    expect(result.erase?.taskId).toBe(s.eraseTasks[0].taskId);
  });

  test('review submit reset before creating: nothing to reconcile, resubmitted once (policy resubmit)', async () => {
    h.emulator.setFaults({ 'review.async': { resetBeforeCreate: { next: 1 } } });
    const { result } = await h.run({
      review: { media: ['https://media.example.com/a.png'] },
      options: { callbacks: true, archive: false, deadlines: { callbackGrace: '2s' } },
    });
    const s = h.emulator.inspect();
    expect(s.reviewTasks).toHaveLength(1);
    expect(result.review?.batches[0].taskId).toBe(s.reviewTasks[0].taskId);
    expect(result.calls['review.submitAsync']).toBe(2);
  });

  test('callbacks dropped: polling still finishes the pipeline', async () => {
    h.emulator.setFaults({
      'generation.callback': { callbackDrop: { probability: 1 } },
      'erase.callback': { callbackDrop: { probability: 1 } },
    });
    const { result } = await h.run(generationAndErase({ callbacks: true }));
    expect(result.erase?.videoUrl).toBeTruthy();
    expect(h.emulator.inspect().counters.faultsInjected.callbackDrop).toBeGreaterThan(0);
  });

  test('callbacks duplicated and delayed: one task each, pipeline completes', async () => {
    h.emulator.setFaults({
      'generation.callback': { callbackDuplicate: { probability: 1 } },
      'erase.callback': { callbackDelay: { probability: 1, ms: 1_500 } },
    });
    await h.run(generationAndErase({ callbacks: true }));
    const s = h.emulator.inspect();
    expect(s.generationTasks).toHaveLength(1);
    expect(s.eraseTasks).toHaveLength(1);
  });
});

describe('faults without callbacks', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { profile: quick } });
  });
  afterAll(async () => h?.close());
  beforeEach(() => h.emulator.reset());

  test('asset create reset after creating: reconciled by its deterministic name, no duplicate', async () => {
    h.emulator.setFaults({ 'assets.CreateAsset': { resetAfterCreate: { next: 1 } } });
    const { result } = await h.run({
      assets: {
        group: { name: 'fault-assets' },
        items: [{ name: 'clip', url: 'https://media.example.com/c.mp4', type: 'Video' }],
      },
      options: { archive: false },
    });
    const s = h.emulator.inspect();
    const mine = s.assets.filter((a) => a.GroupId === result.assets?.groupId);
    expect(mine).toHaveLength(1);
    expect(result.assets?.items[0].assetId).toBe(mine[0].Id);
    expect(result.vendorTasks.find((t) => t.kind === 'asset')?.via).toBe('reconcile-name');
  });

  test('a group already holding 250 assets: the happy path lists none; a reconcile reads 2 pages, not 3', async () => {
    const g = await h.vendor.assets.createAssetGroup({ Name: 'full-group', Description: 'filled' });
    await fillGroup(h.emulator.url, USER_1, g.Id, 250);
    const items = [
      { name: 'a', url: 'https://media.example.com/a.png', type: 'Image' as const },
      { name: 'b', url: 'https://media.example.com/b.png', type: 'Image' as const },
    ];
    const happy = await h.run({ assets: { group: { id: g.Id }, items }, options: { archive: false } });
    expect(happy.result.calls['assets.ListAssets']).toBeUndefined();
    expect(happy.result.calls['assets.CreateAsset']).toBe(2);

    // The create's answer lost after the asset exists: found by name on the last page (the
    // emulator lists by creation), after the first.
    h.emulator.setFaults({ 'assets.CreateAsset': { resetAfterCreate: { next: 1 } } });
    const { result } = await h.run({
      assets: { group: { id: g.Id }, items: items.slice(0, 1) },
      options: { archive: false },
    });
    expect(result.calls['assets.ListAssets']).toBe(2);
    expect(result.vendorTasks.find((t) => t.kind === 'asset')?.via).toBe('reconcile-name');
    const mine = h.emulator
      .inspect()
      .assets.filter((a) => a.GroupId === g.Id && a.Id === result.assets?.items[0].assetId);
    expect(mine).toHaveLength(1);
    expect(h.emulator.inspect().assets.filter((a) => a.GroupId === g.Id)).toHaveLength(253);
  });

  test('asset group create hit by 502 UpstreamCallFailed: retried after a name check, one group', async () => {
    h.emulator.setFaults({ 'assets.CreateAssetGroup': { upstream502: { next: 1 } } });
    const { result } = await h.run({
      assets: {
        group: { name: 'fault-502' },
        items: [{ name: 'pic', url: 'https://media.example.com/p.png', type: 'Image' }],
      },
      options: { archive: false },
    });
    const groups = h.emulator.inspect().groups.filter((g) => g.Name === 'fault-502');
    expect(groups).toHaveLength(1);
    expect(result.assets?.groupId).toBe(groups[0].Id);
    expect(result.assets?.groupCreated).toBe(true);
  });

  test('429 bursts on generation create and GetAsset: Retry-After obeyed, one task each', async () => {
    h.emulator.setFaults({
      'generation.create': { rateLimit429: { next: 2, retryAfterSeconds: 1 } },
      'assets.GetAsset': { rateLimit429: { next: 2, retryAfterSeconds: 1 } },
    });
    const { result } = await h.run({
      assets: {
        group: { name: 'fault-429' },
        items: [{ name: 'pic', url: 'https://media.example.com/p.png', type: 'Image' }],
      },
      generation: { model: 'video-model-1', content: [{ type: 'image_url', image_url: { url: 'ref:asset/pic' } }] },
      options: { archive: false },
    });
    const s = h.emulator.inspect();
    expect(s.generationTasks).toHaveLength(1);
    expect(result.calls['generation.create']).toBe(3);
    expect(s.counters.faultsInjected.rateLimit429).toBe(4);
  });

  test('erase create 502 (video processing failed) fails the pipeline clearly, no retry with the same URL', async () => {
    h.emulator.setFaults({ 'erase.create': { upstream502: { next: 1 } } });
    const handle = await h.start(generationAndErase());
    const err = await rejection(handle.result(), WorkflowFailedError);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect(String(err.cause?.message)).toMatch(/erase create rejected/);
    expect(h.emulator.inspect().eraseTasks).toHaveLength(0);
    const status = await handle.query(statusQuery);
    expect(status.state).toBe('failed');
    expect(status.stages.erase.state).toBe('failed');
  });

  test('ambiguous paid create under policy ask: waits visibly, an operator resolves it with the task id', async () => {
    h.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
    const handle = await h.start(generationOnly());
    const waiting = await waitForStatus(handle, (s) => s.state === 'waiting-operator');
    expect(waiting.waiting?.step).toBe('generation');
    const [task] = h.emulator.inspect().generationTasks; // what an operator finds in the vendor console

    // The validator refuses a malformed decision before anything happens.
    const refused = await rejection(
      handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: 'has spaces' } }] }),
      WorkflowUpdateFailedError,
    );
    expect(refused.cause?.message).toMatch(/decision.taskId/);
    const accepted = await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: task.id } }] });
    expect(accepted).toEqual({ stage: 'generation', step: 'generation', accepted: { taskId: task.id } });
    const result = await handle.result();
    expect(result.generation?.taskId).toBe(task.id);
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);
    expect(result.vendorTasks.find((t) => t.kind === 'generation')?.via).toBe('operator');
  });

  test("an operator's task id is proven: malformed and unknown ids are refused, the pipeline waits on, the real one completes it", async () => {
    h.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
    const handle = await h.start(generationOnly());
    await waitForStatus(handle, (s) => s.state === 'waiting-operator');
    const [task] = h.emulator.inspect().generationTasks; // the task the ambiguous create did make

    // The validator refuses what it sees without I/O: nothing reaches the handler.
    const malformed = await rejection(
      handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: "x' OR '1'='1" } }] }),
      WorkflowUpdateFailedError,
    );
    expect(malformed.cause?.message).toMatch(/^decision.taskId: /);

    // Well formed but unknown at the vendor (within the read-after-write grace): refused, says when to retry.
    const unknown = await rejection(
      handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: 'cgt-bogus-id' } }] }),
      WorkflowUpdateFailedError,
    );
    expect(unknown.cause).toBeInstanceOf(ApplicationFailure);
    expect((unknown.cause as ApplicationFailure).type).toBe('TaskIdRefused');
    expect(unknown.cause?.message).toMatch(/^task cgt-bogus-id is not found at the vendor yet .*; try again in \d+ s$/);
    // A task the vendor knows, but not of this create (another model): refused, naming the fact.
    const decoy = (await h.vendor.generation.create({ model: 'video-model-2', content: [{ type: 'text', text: 'd' }] }))
      .id;
    const other = await rejection(
      handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: decoy } }] }),
      WorkflowUpdateFailedError,
    );
    expect(other.cause?.message).toContain(
      `task ${decoy} is refused: its model is video-model-2, this create asked for video-model-1`,
    );
    const still = await handle.query(statusQuery);
    expect(still.state).toBe('waiting-operator');
    expect(still.stages.generation.state).toBe('running');
    expect(still.vendorTasks).toEqual([]);

    // The real task passes the same proof as a callback's offer and ends the wait.
    const accepted = await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: task.id } }] });
    expect(accepted.accepted).toEqual({ taskId: task.id });
    const result = await handle.result();
    expect(result.generation?.taskId).toBe(task.id);
    expect(result.vendorTasks.find((t) => t.kind === 'generation')?.via).toBe('operator');
    expect(result.calls['generation.create']).toBe(1);
    expect(h.emulator.inspect().generationTasks.filter((t) => t.id !== decoy)).toHaveLength(1);
  });

  test('ambiguous create where nothing was created: the operator says resubmit, exactly one task results', async () => {
    h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    const handle = await h.start(generationOnly());
    await waitForStatus(handle, (s) => s.state === 'waiting-operator');
    expect(h.emulator.inspect().generationTasks).toHaveLength(0);
    await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { resubmit: true } }] });
    const result = await handle.result();
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);
    expect(result.calls['generation.create']).toBe(2);
  });

  test('resolveCreate on a pipeline that is not waiting is refused', async () => {
    const handle = await h.start(generationOnly());
    const refused = await rejection(
      handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { resubmit: true } }] }),
      WorkflowUpdateFailedError,
    );
    expect(refused.cause?.message).toMatch(/is not waiting for an operator decision/);
    await handle.result();
  });
});
