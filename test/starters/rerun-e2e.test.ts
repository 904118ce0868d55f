/**
 * Rerun on the REAL dev server, a real worker and the vendor emulator: a full pipeline,
 * then reruns that reuse its outputs. The emulator's records prove what was (not) created
 * again; expired outputs are refused by the CLI and by the workflow itself; a raw start
 * cannot hand the workflow outputs of its own; a paid task left running is adopted.
 * The emulator's clock is ours: it starts 25 h behind (for a source whose video URL has
 * expired), then runs on real time, and stands still while a generation must stay running.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { InspectionSnapshot } from '../../src/emulator';
import { FailureType } from '../../src/failures';
import { parseDefinition } from '../../src/definition/definition';
import { startPipeline } from '../../src/starters/client/pipeline-client';
import { planRerun, rerunPipeline } from '../../src/starters/client/rerun';
import {
  outputsQuery,
  statusQuery,
  STAGES,
  type ReusedOutputs,
  type PipelineResult,
  type PipelineReuse,
} from '../../src/contract/messages';
import {
  expectReplays,
  fullDefinition,
  rejection,
  startHarness,
  waitForStatus,
  type Harness,
} from '../support/harness';
import { cli } from '../support/cli';
import { until } from '../support/poll';

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

const HOUR = 3_600_000;
/** The emulator's time: real time plus `shiftMs`, or `frozenAt` while set. */
let shiftMs = -25 * HOUR;
let frozenAt: number | undefined;

/** The smallest history limit: a full pipeline continues as new a few times on the way. */
const continuing = () => fullDefinition({ options: { historyEventsBeforeContinueAsNew: 50 } });

/** The pipeline's failure, unwrapped from PipelineFailed. */
async function refusalOf(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await rejection(p, WorkflowFailedError);
  expect((err.cause as ApplicationFailure).type).toBe(FailureType.PipelineFailed);
  return (err.cause as ApplicationFailure).cause as ApplicationFailure;
}

describe('rerun: reuse paid work', () => {
  let h: Harness;
  let earlierId: string;
  let earlierRunId: string;
  let earlier: PipelineResult;
  /** A pipeline whose generated video URL had expired when it reached erase (failed there). */
  let expiredId: string;
  beforeAll(async () => {
    h = await startHarness({ emulator: { clock: () => frozenAt ?? Date.now() + shiftMs } });
    const old = await h.start(fullDefinition());
    expiredId = old.workflowId;
    await old.result().catch(() => undefined);
    shiftMs = 0; // forward only: the emulator's rate windows and expiries stay sane
    const run = await h.run(fullDefinition());
    earlierId = run.handle.workflowId;
    earlierRunId = (await run.handle.describe()).runId;
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
    // Read from the earlier RUN, which the rerun names: not from the rerun's own input.
    expect(result.reused).toEqual({
      fromPipelineId: earlierId,
      fromRunId: earlierRunId,
      stages: ['review', 'assets', 'generation'],
    });
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

  describe('a raw start cannot hand the workflow outputs of its own', () => {
    test('old-form reuse (outputs inline, erase pointed at any URL) is refused naming reuse.fromRunId; no vendor call', async () => {
      const { definition } = await h.client.workflow.getHandle(earlierId).query(outputsQuery);
      const forged: ReusedOutputs = {
        fromPipelineId: earlierId,
        review: earlier.review,
        assets: earlier.assets,
        generation: { ...earlier.generation!, videoUrl: 'https://attacker.example/any.mp4' },
      };
      const seq = lastSeq();
      // Raw, as `temporal workflow start` would: no client-side check on the way.
      const handle = await h.client.workflow.start('videoPipeline', {
        taskQueue: h.taskQueue,
        workflowId: `forged-${randomUUID().slice(0, 8)}`,
        args: [{ definition, reuse: forged }],
      });
      const refusal = await refusalOf(handle.result());
      expect(refusal.type).toBe(FailureType.InvalidDefinition);
      expect(refusal.message).toMatch(/^reuse\.fromRunId: the earlier pipeline's run id is required/);
      expect(h.emulator.inspect().requests.filter((r) => r.seq > seq)).toEqual([]);
    });

    test('a named run with outputs inline as well is refused naming the output; no vendor call', async () => {
      const { definition } = await h.client.workflow.getHandle(earlierId).query(outputsQuery);
      const erase = { taskId: 'er-x', videoUrl: 'https://attacker.example/erased.mp4' };
      const reuse = { fromPipelineId: earlierId, fromRunId: earlierRunId, stages: ['review'], erase };
      const seq = lastSeq();
      const handle = await startPipeline(h.client, definition, {
        taskQueue: h.taskQueue,
        reuse: reuse as unknown as PipelineReuse,
      });
      const refusal = await refusalOf(handle.result());
      expect(refusal.type).toBe(FailureType.InvalidDefinition);
      expect(refusal.message).toMatch(/^reuse\.erase: outputs are not taken from the input/);
      expect(h.emulator.inspect().requests.filter((r) => r.seq > seq)).toEqual([]);
    });

    test('a source run that does not exist is refused as past retention or unknown; no vendor call', async () => {
      const { definition } = await h.client.workflow.getHandle(earlierId).query(outputsQuery);
      const fromRunId = randomUUID();
      const seq = lastSeq();
      const handle = await startPipeline(h.client, definition, {
        taskQueue: h.taskQueue,
        reuse: { fromPipelineId: earlierId, fromRunId, stages: ['review', 'assets'] },
      });
      const refusal = await refusalOf(handle.result());
      expect(refusal.type).toBe(FailureType.ReuseRefused);
      expect(refusal.message).toBe(
        `reuse.fromRunId: run ${fromRunId} of ${earlierId} is not found: past the namespace's retention, or unknown`,
      );
      expect(h.emulator.inspect().requests.filter((r) => r.seq > seq)).toEqual([]);
    });
  });

  describe('an expired generated video URL', () => {
    test('is refused by the workflow at start (ReusedOutputExpired), before any vendor call', async () => {
      const { definition } = await h.client.workflow.getHandle(expiredId).query(outputsQuery);
      const fromRunId = (await h.client.workflow.getHandle(expiredId).describe()).runId;
      const seq = lastSeq();
      const handle = await startPipeline(h.client, definition, {
        taskQueue: h.taskQueue,
        reuse: { fromPipelineId: expiredId, fromRunId, stages: ['review', 'assets', 'generation'] },
      });
      const refusal = await refusalOf(handle.result());
      expect(refusal.type).toBe(FailureType.ReusedOutputExpired);
      expect(refusal.message).toContain('generation.videoUrl');
      expect(refusal.details?.[0]).toMatchObject({ output: 'generation.videoUrl' });
      expect(h.emulator.inspect().requests.filter((r) => r.seq > seq)).toEqual([]);
      const status = await handle.query(statusQuery);
      expect(status).toMatchObject({ state: 'failed', stage: 'erase' });
    });

    test('is refused by the CLI with the reason, and nothing starts', async () => {
      const r = await cli(['rerun', expiredId, '--json']);
      expect(r.code).toBe(1);
      expect(r.json().error).toMatchObject({ kind: 'refused', reason: 'expired', output: 'generation.videoUrl' });
      const human = await cli(['rerun', expiredId]);
      expect(human.stderr).toMatch(/rerun refused: generation\.videoUrl of .* expired at .*; rerun --from generation/);
      // Its erase never finished: nothing to reuse for the archive.
      const archive = await cli(['rerun', expiredId, '--from', 'archive', '--json']);
      expect(archive.code).toBe(1);
      expect(archive.json().error).toMatchObject({ kind: 'refused', reason: 'not-finished' });
      expect(archive.json().error.message).toContain('erase of');
    });
  });

  describe('a pipeline cancelled while its generation task still runs at the vendor', () => {
    let sourceId: string;
    let taskId: string;
    beforeAll(async () => {
      const source = await h.start(fullDefinition());
      sourceId = source.workflowId;
      await waitForStatus(source, (s) => s.stage === 'generation');
      frozenAt = Date.now(); // vendor time stands still: the task cannot end
      const st = await waitForStatus(source, (s) => s.vendorTasks.some((t) => t.kind === 'generation'));
      taskId = st.vendorTasks.find((t) => t.kind === 'generation')!.id;
      await source.cancel();
      await source.result().catch(() => undefined);
    });
    afterAll(() => {
      frozenAt = undefined;
    });

    test('a raw start that would redo its inputs is refused by the workflow, naming the task; no vendor call', async () => {
      const { definition } = await h.client.workflow.getHandle(sourceId).query(outputsQuery);
      const fromRunId = (await h.client.workflow.getHandle(sourceId).describe()).runId;
      const seq = lastSeq();
      const handle = await startPipeline(h.client, definition, {
        taskQueue: h.taskQueue,
        reuse: { fromPipelineId: sourceId, fromRunId, stages: ['review'] },
      });
      const refusal = await refusalOf(handle.result());
      expect(refusal.type).toBe(FailureType.ReuseRefused);
      expect(refusal.message).toMatch(
        new RegExp(`^generation task ${taskId} of ${sourceId} is \\S+.* may still succeed`),
      );
      expect(h.emulator.inspect().requests.filter((r) => r.seq > seq && isCreate(r.endpoint))).toEqual([]);
    });

    test('rerun adopts the task and completes: no second generation create at the vendor', async () => {
      const seq = lastSeq();
      const r = await cli(['rerun', sourceId, '--json']);
      expect(r.code).toBe(0);
      expect(r.json()).toMatchObject({ from: 'generation', reused: ['review', 'assets'], adopts: [taskId] });
      frozenAt = undefined; // the vendor's time runs on: the task ends
      const handle = h.client.workflow.getHandle(r.json().workflowId as string);
      const result = (await handle.result()) as PipelineResult;
      expect(result.generation!.taskId).toBe(taskId);
      expect(createsSince(seq)).toEqual(['erase.create']);
      expect(h.emulator.inspect().generationTasks.filter((t) => t.id === taskId)).toHaveLength(1);
      expect(result.vendorTasks.find((t) => t.kind === 'generation')).toMatchObject({ id: taskId, via: 'existing' });
      await expectReplays(handle);
    });
  });

  describe('a source that continued as new: its first run misses the tasks of the runs after it', () => {
    let chainId: string;
    /** Its runs, first to last, read from the histories' continue-as-new events. */
    let runs: string[];
    beforeAll(async () => {
      const handle = await h.start(continuing());
      await handle.result();
      chainId = handle.workflowId;
      runs = [handle.firstExecutionRunId];
      for (;;) {
        const { events } = await h.client.workflow.getHandle(chainId, runs[runs.length - 1]).fetchHistory();
        const next = events?.[events.length - 1]?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
        if (!next) break;
        runs.push(next);
      }
    });
    const outputsOf = (runId: string) => h.client.workflow.getHandle(chainId, runId).query(outputsQuery);

    test('the first run shows no erase task, which a later run created (what a rerun of it would pay for again)', async () => {
      expect(runs.length).toBeGreaterThanOrEqual(2);
      const first = await outputsOf(runs[0]);
      const last = await outputsOf(runs[runs.length - 1]);
      const known = new Set(first.result.vendorTasks.map((t) => t.id));
      expect(last.result.vendorTasks.filter((t) => !known.has(t.id)).map((t) => t.kind)).toContain('erase');
      // Planned from the first run's outputs alone, a rerun would create the erase (at least) again.
      const naive = planRerun({ pipelineId: chainId, runId: runs[0] }, parseDefinition(first.definition), first.result);
      expect(naive.reused).not.toContain('erase');
    });

    test("rerun --run-id <first run> reads the chain's last run: refused as all finished, and --from archive creates nothing", async () => {
      const last = runs[runs.length - 1];
      const seq = lastSeq();
      const all = await cli(['rerun', chainId, '--run-id', runs[0], '--json']);
      expect(all.code).toBe(1);
      expect(all.json().error).toMatchObject({ kind: 'refused', reason: 'all-finished' });

      const r = await cli(['rerun', chainId, '--run-id', runs[0], '--from', 'archive']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `rerun of ${chainId} (run ${last}, the last of the chain run ${runs[0]} continued into)`,
      );
      const result = (await h.client.workflow.getHandle(r.stdout.trim()).result()) as PipelineResult;
      expect(result.reused).toEqual({ fromPipelineId: chainId, fromRunId: last, stages: STAGES });
      expect(result.erase).toEqual((await outputsOf(last)).result.erase);
      expect(createsSince(seq)).toEqual([]);
    });

    test('a raw start whose reuse names the first run is refused naming reuse.fromRunId and the last run; no vendor call', async () => {
      const first = await outputsOf(runs[0]);
      // Every stage the first run finished: the rest would be created again.
      const stages = STAGES.filter((s) => first.result[s] !== undefined);
      const seq = lastSeq();
      const handle = await h.client.workflow.start('videoPipeline', {
        taskQueue: h.taskQueue,
        workflowId: `raw-${randomUUID().slice(0, 8)}`,
        args: [{ definition: first.definition, reuse: { fromPipelineId: chainId, fromRunId: runs[0], stages } }],
      });
      const refusal = await refusalOf(handle.result());
      expect(refusal.type).toBe(FailureType.ReuseRefused);
      expect(refusal.message).toMatch(
        new RegExp(
          `^reuse\\.fromRunId: run ${runs[0]} of ${chainId} continued as new, .*name the chain's last run, ${runs[runs.length - 1]} `,
        ),
      );
      expect(h.emulator.inspect().requests.filter((r) => r.seq > seq)).toEqual([]);
    });
  });

  describe('a chain that still runs (its generation cannot end: the vendor clock stands still)', () => {
    let source: Awaited<ReturnType<Harness['start']>>;
    let firstRunId: string;
    /** The run the chain runs as now: the pipeline keeps polling and continuing as new. */
    const current = async () => (await source.describe()).runId;
    beforeAll(async () => {
      source = await h.start(continuing());
      firstRunId = source.firstExecutionRunId;
      await waitForStatus(source, (s) => s.stage === 'generation');
      frozenAt = Date.now(); // vendor time stands still: the task cannot end
      await until('the pipeline continued as new', async () => (await current()) !== firstRunId);
    });
    afterAll(async () => {
      await source.cancel();
      await source.result().catch(() => undefined);
      frozenAt = undefined;
    });

    test('rerun --run-id <first run> is refused as running, naming a later run of the chain', async () => {
      const r = await cli(['rerun', source.workflowId, '--run-id', firstRunId, '--json']);
      expect(r.code).toBe(1);
      expect(r.json().error).toMatchObject({ kind: 'refused', reason: 'running' });
      const named = /is still running \(run (\S+), the last of the chain run (\S+) continued into\)/.exec(
        r.json().error.message as string,
      );
      expect(named?.[2]).toBe(firstRunId);
      expect(named?.[1]).not.toBe(firstRunId);
      expect((await h.client.workflow.getHandle(source.workflowId, named![1]).describe()).status.name).toMatch(
        /RUNNING|CONTINUED_AS_NEW/,
      );
    });

    test('a raw start whose reuse names the first run is refused naming reuse.fromRunId and a later run; no create', async () => {
      const seq = lastSeq();
      const { definition } = await h.client.workflow.getHandle(source.workflowId, firstRunId).query(outputsQuery);
      const raw = await startPipeline(h.client, definition, {
        taskQueue: h.taskQueue,
        reuse: { fromPipelineId: source.workflowId, fromRunId: firstRunId, stages: ['review', 'assets'] },
      });
      const refusal = await refusalOf(raw.result());
      expect(refusal.type).toBe(FailureType.ReuseRefused);
      const still = new RegExp(
        `^reuse\\.fromRunId: run ${firstRunId} of ${source.workflowId} continued as new, .*its chain still runs as run (\\S+);`,
      );
      expect(refusal.message).toMatch(still);
      expect(still.exec(refusal.message)![1]).not.toBe(firstRunId);
      expect(createsSince(seq)).toEqual([]);
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
    const seq = lastSeq();
    const reuse = { fromPipelineId: earlierId, fromRunId: earlierRunId, stages: ['reviews'] };
    const handle = await startPipeline(h.client, definition, {
      taskQueue: h.taskQueue,
      reuse: reuse as unknown as PipelineReuse,
    });
    const refusal = await refusalOf(handle.result());
    expect(refusal.type).toBe(FailureType.InvalidDefinition);
    expect(refusal.message).toBe('reuse.stages: a list of stages to reuse (review, assets, generation, erase)');
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
    const run = await cli(['rerun', earlierId, '--run-id', 'latest', '--json']);
    expect(run.json().error).toMatchObject({ kind: 'usage', option: '--run-id' });
    const batch = await cli(['rerun', '--batch', 'b1', '--run-id', earlierRunId, '--json']);
    expect(batch.json().error).toMatchObject({ kind: 'usage', option: '--run-id' });
    const none = await cli(['rerun']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('needs <workflow-id>');
  });
});
