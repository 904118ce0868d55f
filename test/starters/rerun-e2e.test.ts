/**
 * Rerun on the REAL dev server, a real worker and the vendor emulator: a full pipeline,
 * then reruns that reuse its outputs. The emulator's records prove what was (not) created
 * again; expired outputs are refused by the CLI and by the workflow itself.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { InspectionSnapshot } from '../../src/emulator';
import { FailureType } from '../../src/failures';
import { startPipeline } from '../../src/starters/pipeline-client';
import { rerunPipeline } from '../../src/starters/rerun';
import { outputsQuery, statusQuery, type PipelineResult, type PipelineReuse } from '../../src/workflows/messages';
import { expectReplays, fullDefinition, rejection, startHarness, type Harness } from '../workflows/harness';
import { cli } from './helpers';

/** Vendor requests that create something (a paid task, an asset, a group). */
const CREATES = ['generation.create', 'erase.create', 'review.async', 'review.sync', 'assets.CreateAsset'];
const isCreate = (endpoint?: string) => CREATES.includes(endpoint ?? '') || endpoint === 'assets.CreateAssetGroup';

/** What the emulator holds, by kind: ids of every review task, asset, group, generation and erase task. */
function records(s: InspectionSnapshot) {
  return {
    review: s.reviewTasks.map((t) => t.taskId),
    assets: s.assets.map((a) => a.Id),
    groups: s.groups.map((g) => g.Id),
    generation: s.generationTasks.map((t) => t.id),
    erase: s.eraseTasks.map((t) => t.taskId),
  };
}

describe('rerun: reuse paid work', () => {
  let h: Harness;
  let earlierId: string;
  let earlier: PipelineResult;
  beforeAll(async () => {
    h = await startHarness();
    const run = await h.run(fullDefinition());
    earlierId = run.handle.workflowId;
    earlier = run.result;
  });
  afterAll(async () => h?.close());

  /** Starts after the emulator's last request; returns the create endpoints seen since. */
  function createsSince(seq: number): string[] {
    return h.emulator
      .inspect()
      .requests.filter((r) => r.seq > seq && isCreate(r.endpoint))
      .map((r) => r.endpoint!);
  }
  const lastSeq = () => Math.max(0, ...h.emulator.inspect().requests.map((r) => r.seq));

  test('rerun --from erase: a new erase task, and no review, asset, group or generation create', async () => {
    const before = records(h.emulator.inspect());
    const seq = lastSeq();
    const r = await cli(['rerun', earlierId, '--from', 'erase', '--json']);
    expect(r.code).toBe(0);
    const doc = r.json();
    expect(doc).toMatchObject({ rerunOf: earlierId, from: 'erase', reused: ['review', 'assets', 'generation'] });
    const handle = h.client.workflow.getHandle(doc.workflowId as string);
    const result = (await handle.result()) as PipelineResult;

    const after = records(h.emulator.inspect());
    expect(after).toEqual({ ...before, erase: [...before.erase, expect.any(String)] });
    expect(createsSince(seq)).toEqual(['erase.create']);
    const erase = h.emulator.inspect().eraseTasks.find((t) => t.taskId === result.erase!.taskId)!;
    expect(erase.sourceVideoUrl.split('?')[0]).toBe(earlier.generation!.videoUrl.split('?')[0]);

    expect(result.generation).toEqual(earlier.generation);
    expect(result.review).toEqual(earlier.review);
    expect(result.erase!.taskId).not.toBe(earlier.erase!.taskId);
    expect(result.reused).toEqual({ fromPipelineId: earlierId, stages: ['review', 'assets', 'generation'] });
    expect(result.vendorTasks.map((t) => t.kind)).toEqual(['erase']);
    expect(result.cost.erase?.calls).toBe(1);
    expect(result.archived.map((f) => f.name)).toEqual(earlier.archived.map((f) => f.name));

    const status = await handle.query(statusQuery);
    expect(status.stages.generation).toMatchObject({ state: 'done', reusedFrom: earlierId });
    expect(status.stages.erase.reusedFrom).toBeUndefined();
    const human = await cli(['status', handle.workflowId]);
    expect(human.stdout).toMatch(new RegExp(`review\\s+done \\(reused from ${earlierId}\\)`));
    await expectReplays(handle);
  });

  test('rerun --from archive (library): no vendor create at all; the outputs are archived again', async () => {
    const before = records(h.emulator.inspect());
    const seq = lastSeq();
    const { handle, reused } = await rerunPipeline(h.client, earlierId, { from: 'archive' });
    expect(reused).toEqual(['review', 'assets', 'generation', 'erase']);
    const result = await handle.result();
    expect(records(h.emulator.inspect())).toEqual(before);
    expect(createsSince(seq)).toEqual([]);
    expect(result.erase).toEqual(earlier.erase);
    expect(result.vendorTasks).toEqual([]);
    expect(result.cost).toEqual({});
    expect(result.archived.map((f) => [f.name, f.sha256])).toEqual(earlier.archived.map((f) => [f.name, f.sha256]));
  });

  test('reused asset URLs older than ~12 h are fetched again by GetAsset, with no create', async () => {
    const { definition } = await h.client.workflow.getHandle(earlierId).query(outputsQuery);
    const old = new Date(Date.now() - 13 * 3_600_000).toISOString();
    const assets = { ...earlier.assets!, items: earlier.assets!.items.map((a) => ({ ...a, signedUrlFetchedAt: old })) };
    const { review, generation, erase } = earlier;
    const reuse: PipelineReuse = { fromPipelineId: earlierId, review, assets, generation, erase };
    const seq = lastSeq();
    const handle = await startPipeline(h.client, definition, { taskQueue: h.taskQueue, reuse });
    const result = await handle.result();
    expect(createsSince(seq)).toEqual([]);
    const gets = h.emulator.inspect().requests.filter((r) => r.seq > seq && r.endpoint === 'assets.GetAsset');
    expect(gets.length).toBe(assets.items.length);
    for (const a of result.assets!.items) expect(Date.parse(a.signedUrlFetchedAt!)).toBeGreaterThan(Date.parse(old));
    expect(result.calls['assets.GetAsset']).toBe(assets.items.length);
  });

  describe('an expired generated video URL', () => {
    let refusedId: string;
    test('is refused by the workflow at start (ReusedOutputExpired), before any vendor call', async () => {
      const { definition } = await h.client.workflow.getHandle(earlierId).query(outputsQuery);
      const expired = new Date(Date.now() - 3_600_000).toISOString();
      const reuse: PipelineReuse = {
        fromPipelineId: earlierId,
        review: earlier.review,
        assets: earlier.assets,
        generation: { ...earlier.generation!, videoUrlExpiresAt: expired },
      };
      const seq = lastSeq();
      const handle = await startPipeline(h.client, definition, { taskQueue: h.taskQueue, reuse });
      refusedId = handle.workflowId;
      const err = await rejection(handle.result(), WorkflowFailedError);
      const cause = err.cause as ApplicationFailure;
      expect(cause.type).toBe(FailureType.PipelineFailed);
      const refusal = cause.cause as ApplicationFailure;
      expect(refusal.type).toBe(FailureType.ReusedOutputExpired);
      expect(refusal.message).toContain('generation.videoUrl');
      expect(refusal.details?.[0]).toMatchObject({ output: 'generation.videoUrl', expiresAt: expired });
      expect(h.emulator.inspect().requests.filter((r) => r.seq > seq)).toEqual([]);
      const status = await handle.query(statusQuery);
      expect(status).toMatchObject({ state: 'failed', stage: 'erase' });
    });

    test('is refused by the CLI with the reason, and nothing starts', async () => {
      const r = await cli(['rerun', refusedId, '--json']);
      expect(r.code).toBe(1);
      expect(r.json().error).toMatchObject({ kind: 'refused', reason: 'expired', output: 'generation.videoUrl' });
      const human = await cli(['rerun', refusedId]);
      expect(human.stderr).toMatch(/rerun refused: generation\.videoUrl of .* expired at .*; rerun --from generation/);
      // The erase of the refused pipeline never finished: nothing to reuse for the archive.
      const archive = await cli(['rerun', refusedId, '--from', 'archive', '--json']);
      expect(archive.code).toBe(1);
      expect(archive.json().error).toMatchObject({ kind: 'refused', reason: 'not-finished' });
      expect(archive.json().error.message).toContain('erase of');
    });
  });

  // A pipeline that never ran a workflow task: the server refuses the query at once (with no
  // worker polling, a pipeline that did run would time out instead: same message).
  test('when the earlier pipeline cannot answer the outputs query, the error names its task queue', async () => {
    const { definition } = await h.client.workflow.getHandle(earlierId).query(outputsQuery);
    const orphan = await startPipeline(h.client, definition, { taskQueue: `${h.taskQueue}-nobody` });
    await orphan.terminate('test');
    const err = await rejection(rerunPipeline(h.client, orphan.workflowId, { queryTimeoutMs: 1_000 }), Error);
    expect(err.message).toContain(`is a reelflow worker running on task queue "${h.taskQueue}-nobody"?`);
  });

  test('a malformed reuse (a hand-made workflow input) fails naming the field, before any vendor call', async () => {
    const { definition } = await h.client.workflow.getHandle(earlierId).query(outputsQuery);
    const generation = { ...earlier.generation!, videoUrlExpiresAt: 'tomorrow' };
    const seq = lastSeq();
    const handle = await startPipeline(h.client, definition, {
      taskQueue: h.taskQueue,
      reuse: { fromPipelineId: earlierId, review: earlier.review, assets: earlier.assets, generation },
    });
    const err = await rejection(handle.result(), WorkflowFailedError);
    const refusal = (err.cause as ApplicationFailure).cause as ApplicationFailure;
    expect(refusal.type).toBe(FailureType.InvalidDefinition);
    expect(refusal.message).toBe('reuse.generation.videoUrlExpiresAt: an ISO time');
    expect(h.emulator.inspect().requests.filter((r) => r.seq > seq)).toEqual([]);
  });

  test('a running pipeline is refused; a finished one needs --from; usage errors name the option', async () => {
    const running = await h.start(fullDefinition());
    try {
      const r = await cli(['rerun', running.workflowId, '--json']);
      expect(r.json().error).toMatchObject({ kind: 'refused', reason: 'running' });
    } finally {
      await running.cancel();
    }
    const all = await cli(['rerun', earlierId, '--json']);
    expect(all.json().error).toMatchObject({ kind: 'refused', reason: 'all-finished' });

    const bad = await cli(['rerun', earlierId, '--from', 'erasing', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.json().error).toMatchObject({ kind: 'usage', option: '--from' });
    const blank = await cli(['rerun', earlierId, '--id', ' ', '--json']);
    expect(blank.json().error).toMatchObject({ kind: 'usage', option: '--id' });
    const none = await cli(['rerun']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('needs <workflow-id>');
  });
});
