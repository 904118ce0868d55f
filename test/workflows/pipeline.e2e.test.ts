/**
 * End to end on the real dev server + the emulator: all four stages, with and without
 * callbacks, in both vendor dialects (our assumed shapes, and the upstream's: Ark
 * generation, nulls, NOT_START/UNKNOWN erase states, Volcengine asset management,
 * lowercase asset://), and stages skipped by the definition. The emulator's inspection
 * proves exactly one vendor task per step (no duplicates) and the archive holds the outputs.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { statusQuery, type PipelineResult } from '../../src/contract/messages';
import { fullDefinition, startHarness, type Harness } from '../support/harness';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function sha256(file: string) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function expectNoDuplicates(h: Harness) {
  const s = h.emulator.inspect();
  const callbackUrls = [...s.generationTasks, ...s.eraseTasks].map((t) => t.callbackUrl).filter(Boolean);
  expect(new Set(callbackUrls).size).toBe(callbackUrls.length);
  const assetNames = s.assets.map((a: { Name?: string; GroupId: string }) => `${a.GroupId}/${a.Name}`);
  expect(new Set(assetNames).size).toBe(assetNames.length);
  const groupNames = s.groups.filter((g) => !g.system).map((g) => `${g.owner}/${g.Name}`);
  expect(new Set(groupNames).size).toBe(groupNames.length);
}

/**
 * The vendor queries a full pipeline makes (getAssetGroup only for a group given by id); its
 * happy path lists no assets (named by run, docs/architecture.md, "Create without duplicates").
 */
const QUERY_TYPES = ['reviewGetTask', 'listAssetGroups', 'generationGet', 'eraseGet'];

/** The activity type a local activity's marker records (core's "data" detail). */
function markerActivityType(e: HistoryEvent): string | undefined {
  const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0];
  return data ? defaultPayloadConverter.fromPayload<{ activity_type?: string }>(data).activity_type : undefined;
}

/**
 * Vendor status queries are local activities (markers, no scheduled activity); creates,
 * GetAsset (its rate-limited queue) and the archive stay scheduled activities.
 */
function expectQueriesAsMarkers(events: HistoryEvent[]) {
  const scheduled = events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
  const local = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  for (const q of QUERY_TYPES) {
    expect(scheduled).not.toContain(q);
    expect(local.map(markerActivityType)).toContain(q);
  }
  expect([...scheduled, ...local.map(markerActivityType)]).not.toContain('listAssetsPage');
  expect(scheduled).toEqual(
    expect.arrayContaining(['reviewSubmit', 'createAssetGroup', 'createAsset', 'getAsset', 'generationCreate']),
  );
  expect(scheduled).toEqual(expect.arrayContaining(['eraseCreate', 'archiveOutput']));
  expect(local.map(markerActivityType)).not.toContain('getAsset');
}

/** Each created asset is first read after assets.firstReadAfter (1 s in fullDefinition), by a timer. */
function expectFirstReadWaits(events: HistoryEvent[], result: PipelineResult) {
  const summary = (e: HistoryEvent) =>
    e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : '';
  for (const item of result.assets!.items) {
    const subject = `asset ${item.name} (${item.assetId})`;
    const started = events.find(
      (e) => summary(e) === `assets · wait 1 s for ${subject} to process before the first poll`,
    );
    const timerId = started?.timerStartedEventAttributes?.timerId;
    expect(timerId).toBeDefined();
    const fired = events.findIndex((e) => e.timerFiredEventAttributes?.timerId === timerId);
    const firstRead = events.findIndex((e) => summary(e) === `assets · GetAsset ${item.assetId}`);
    expect(fired).toBeGreaterThan(events.indexOf(started!));
    expect(firstRead).toBeGreaterThan(fired);
  }
}

/** Every activity, local activity and timer is summarized, prefixed by its stage, with ids and never a URL. */
async function expectSummaries(handle: WorkflowHandle, result: PipelineResult) {
  const events = (await handle.fetchHistory()).events ?? [];
  expectQueriesAsMarkers(events);
  // Local activities: the vendor queries (the definition check before any stage has no summary).
  const scheduled = events.filter(
    (e) => e.activityTaskScheduledEventAttributes || QUERY_TYPES.includes(markerActivityType(e) ?? ''),
  );
  const summary = (e: (typeof events)[number]) =>
    e.userMetadata?.summary ? defaultPayloadConverter.fromPayload<string>(e.userMetadata.summary) : '';
  const activities = scheduled.map(summary);
  const timers = events.filter((e) => e.timerStartedEventAttributes).map(summary);
  const generation = result.generation!.taskId;
  expect(activities).toEqual(
    expect.arrayContaining([
      'review · submit batch 0: 2 Image (attempt 1)',
      `review · poll ${result.review!.batches[0].taskId}`,
      `assets · GetAsset ${result.assets!.items[0].assetId}`,
      'generation · create task (attempt 1)',
      `generation · poll ${generation}`,
      'erase · create task (attempt 1)',
      `erase · poll ${result.erase!.taskId}`,
      'archive · generated.mp4',
    ]),
  );
  expect(timers).toContainEqual(
    expect.stringMatching(new RegExp(`^generation · wait [\\d.]+ s before next poll of ${generation}$`)),
  );
  expectFirstReadWaits(events, result);
  for (const text of [...activities, ...timers]) {
    expect(text).toMatch(/^(review|assets|generation|erase|archive) · \S/);
    expect(text).not.toMatch(/https?:|:\/\//i);
  }
}

describe.each([
  ['without callbacks', 'seed', false],
  ['with callbacks', 'seed', true],
  ['without callbacks', 'upstream', false],
  ['with callbacks', 'upstream', true],
] as const)('full pipeline %s, %s dialect', (_name, dialect, callbacks) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ callbacks, emulator: { dialect } });
  });
  afterAll(async () => h?.close());

  test('runs review → assets → generation → erase and archives both videos', async () => {
    const { handle, result } = await h.run(fullDefinition({ options: { callbacks } }));
    const s = h.emulator.inspect();

    expect(s.generationTasks).toHaveLength(1);
    expect(s.eraseTasks).toHaveLength(1);
    expect(result.generation?.taskId).toBe(s.generationTasks[0].id);
    expect(result.erase?.taskId).toBe(s.eraseTasks[0].taskId);
    // The emulator redacts signatures in its inspection; the path names the generated video.
    expect(s.eraseTasks[0].sourceVideoUrl.split('?')[0]).toBe(result.generation?.videoUrl.split('?')[0]);
    expect(s.eraseTasks[0].generationTaskId).toBe(result.generation?.taskId);
    expect(result.review?.items.map((i) => i.passed)).toEqual([true, true]);
    // The upstream writes asset:// in lower case; generation takes either.
    expect(result.review?.items[0].assetUrl).toMatch(dialect === 'upstream' ? /^asset:\/\// : /^Asset:\/\//);
    if (dialect === 'upstream') {
      // The task really went through the upstream's extra erase states.
      expect(s.eraseTasks[0].history.map((t) => t.status)).toContain('NOT_START');
    }
    expect(result.assets?.items.map((i) => i.status)).toEqual(['Active', 'Active']);

    // References were resolved to Asset:// addresses before the (paid) create.
    const sent = s.generationTasks[0].request as {
      content: { image_url?: { url: string }; audio_url?: { url: string } }[];
    };
    expect(sent.content[1].image_url?.url).toBe(result.review?.items[0].assetUrl);
    expect(sent.content[2].audio_url?.url).toBe(result.assets?.items[1].assetUrl);

    // Every vendor id is in the result and in the status query.
    const ids = result.vendorTasks.map((t) => t.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        result.generation!.taskId,
        result.erase!.taskId,
        ...result.assets!.items.map((i) => i.assetId),
      ]),
    );
    const status = await handle.query(statusQuery);
    expect(status.state).toBe('completed');
    expect(status.vendorTasks.map((t) => t.id).sort()).toEqual([...ids].sort());

    // Archived files exist with the checksum the result claims.
    expect(result.archived.map((a) => a.name).sort()).toEqual(['erased.mp4', 'generated.mp4']);
    for (const file of result.archived) expect(sha256(file.path)).toBe(file.sha256);

    expect(result.cost.erase).toEqual({ calls: 1, unitPrice: 0.000015, currency: '¥', total: 0.000015 });
    expect(result.calls['generation.create']).toBe(1);
    expect(result.calls['erase.create']).toBe(1);
    if (callbacks) {
      expect(s.generationTasks[0].callbackUrl).toContain('/callbacks/');
      expect(s.eraseTasks[0].callbackUrl).toContain('/callbacks/');
    } else {
      expect(s.generationTasks[0].callbackUrl).toBeUndefined();
    }
    expectNoDuplicates(h);
    await expectSummaries(handle, result);
  });
});

describe('stages skipped by the definition', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test("a workflow id reused by a new run archives the new run's video; the old run keeps its file", async () => {
    const id = `reuse-${randomUUID().slice(0, 8)}`;
    const definition = (text: string) => ({
      generation: { model: 'video-model-1', content: [{ type: 'text' as const, text }] },
    });
    const p1 = await (await h.start(definition('P1'), id)).result();
    const p3 = await (await h.start(definition('P3'), id)).result();
    expect(p3.generation!.taskId).not.toBe(p1.generation!.taskId);
    const [old] = p1.archived;
    const [fresh] = p3.archived;
    expect(fresh.taskId).toBe(p3.generation!.taskId);
    expect(fresh.sourceUrl).toBe(p3.generation!.videoUrl.split('?')[0]);
    expect(fresh.path).not.toBe(old.path);
    expect(sha256(fresh.path)).toBe(fresh.sha256);
    expect(sha256(old.path)).toBe(old.sha256);
  });

  test('generation only: no review, assets or erase calls, stages shown as skipped', async () => {
    const { handle, result } = await h.run({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'only a prompt' }] },
      options: { archive: false },
    });
    expect(result.generation?.videoUrl).toBeTruthy();
    expect(result.review).toBeUndefined();
    expect(result.erase).toBeUndefined();
    expect(result.archived).toEqual([]);
    const status = await handle.query(statusQuery);
    expect(status.stages.review.state).toBe('skipped');
    expect(status.stages.assets.state).toBe('skipped');
    expect(status.stages.erase.state).toBe('skipped');
    expect(status.stages.generation.state).toBe('done');
    const s = h.emulator.inspect();
    expect(s.reviewTasks).toHaveLength(0);
    expect(s.eraseTasks).toHaveLength(0);
  });
});

describe('versioning: what a start asks (docs/architecture.md, "Versioning")', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  const patchEvents = (events: HistoryEvent[]) => ({
    markers: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch').length,
    changeVersions: events.filter(
      (e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion,
    ).length,
  });

  test('a full pipeline records the one patch since the first release (spend-in-check), creates assets unlisted and reads them late', async () => {
    const { handle, result } = await h.run(fullDefinition({ options: { archive: false } }));
    const events = (await handle.fetchHistory()).events ?? [];
    expect(patchEvents(events)).toEqual({ markers: 1, changeVersions: 1 });
    // Asked in the first workflow task, before the definition check's marker (behaviour.ts).
    expect(events.flatMap((e) => e.markerRecordedEventAttributes?.markerName ?? [])[0]).toBe('core_patch');
    expect(result.assets?.items.map((i) => i.status)).toEqual(['Active', 'Active']);
    expect(result.calls['assets.ListAssets'] ?? 0).toBe(0);
    expectFirstReadWaits(events, result);
  });

  test('a start that still carries `behaviour` (never in a release) fails before any vendor call, naming the field', async () => {
    const requests = h.emulator.inspect().counters.requests;
    const handle = await h.client.workflow.start('videoPipeline', {
      taskQueue: h.taskQueue,
      workflowId: `test-${randomUUID().slice(0, 8)}`,
      args: [{ definition: fullDefinition({ options: { allowPrivateHosts: true } }), behaviour: 2 }],
    });
    const failure = await handle.result().then(
      () => undefined,
      (err: unknown) => err as { cause?: { message?: string; type?: string } },
    );
    expect(failure?.cause?.type).toBe('InvalidDefinition');
    expect(failure?.cause?.message).toMatch(/^behaviour: no longer an input field \(it was never in a release/);
    expect(h.emulator.inspect().counters.requests).toBe(requests);
  });
});
