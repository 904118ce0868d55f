/**
 * The chaos run's invariants and plan, as pure functions: each invariant catches the
 * breakage it names (a duplicate, an unknown id, a natural 429, a lost file) and
 * passes a clean run.
 */
import {
  attributeRecords,
  checkAll,
  checkNatural429,
  checkNoDuplicates,
  checkNoResultLost,
  checkNoUnknownRecords,
  checkReportedIdsExist,
  checkTerminalStates,
  type ArchivedFileOnDisk,
  type PipelineOutcome,
} from '../../tools/bench/chaos-invariants';
import {
  burstsOf,
  chaosFaults,
  planPipelines,
  planSchedule,
  profileCount,
  seededRandom,
  tagIn,
} from '../../tools/bench/chaos-plan';
import { parseFaultConfig } from '../../src/emulator/faults';
import { parseDefinition } from '../../src/definition/definition';
import type { PipelineResult, VendorTaskRecord } from '../../src/contract/messages';

const SHA_GEN = 'a'.repeat(64);
const SHA_ERA = 'b'.repeat(64);

/** A vendor that holds exactly what pipelines p000 and p001 created. */
function snapshot() {
  const review = (tag: string, id: string) => ({
    taskId: id,
    urls: [`https://media.example.com/chaos/${tag}/front.png`, `https://media.example.com/chaos/${tag}/side.jpg`],
  });
  return {
    reviewTasks: [review('p000', 'r0'), review('p001', 'r1')],
    groups: [
      { Id: 'gd', Name: 'default', owner: 'user#1', system: 'default' },
      { Id: 'g0', Name: 'chaos-p000', owner: 'user#1' },
      { Id: 'g1', Name: 'chaos-p001', owner: 'user#1' },
    ],
    assets: [
      { Id: 'ar', Name: 'front.png', GroupId: 'gd', origin: 'review' },
      { Id: 'a0h', Name: 'hero-rfx', GroupId: 'g0', origin: 'CreateAsset' },
      { Id: 'a0b', Name: 'bgm-rfx', GroupId: 'g0', origin: 'CreateAsset' },
      { Id: 'a1h', Name: 'hero-rfy', GroupId: 'g1', origin: 'CreateAsset' },
      { Id: 'a1b', Name: 'bgm-rfy', GroupId: 'g1', origin: 'CreateAsset' },
    ],
    generationTasks: [
      { id: 'G0', prompt: '[chaos p000] a product turning on a table' },
      { id: 'G1', prompt: '[chaos p001] a product turning on a table fail-generation' },
    ],
    eraseTasks: [{ taskId: 'E0', generationTaskId: 'G0' }],
    counters: {
      rateLimited429: { 'assets.GetAsset': 3 },
      faultsByEndpoint: { 'assets.GetAsset': { rateLimit429: 3 } },
    },
  } as unknown as Parameters<typeof checkNoDuplicates>[0];
}

const task = (kind: VendorTaskRecord['kind'], id: string): VendorTaskRecord => ({
  kind,
  id,
  step: kind,
  attempt: 1,
  via: 'create',
});

function outcomes(): PipelineOutcome[] {
  const result = {
    pipelineId: 'run-p000',
    vendorTasks: [
      task('review', 'r0'),
      task('assetGroup', 'g0'),
      task('asset', 'a0h'),
      task('asset', 'a0b'),
      task('generation', 'G0'),
      task('erase', 'E0'),
    ],
    archived: [
      { name: 'generated.mp4', path: '/arch/p000/generated.mp4', sha256: SHA_GEN, bytes: 1, sourceUrl: 'x' },
      { name: 'erased.mp4', path: '/arch/p000/erased.mp4', sha256: SHA_ERA, bytes: 1, sourceUrl: 'x' },
    ],
    generation: { taskId: 'G0', videoUrl: 'x', videoUrlExpiresAt: 'x' },
    erase: { taskId: 'E0', videoUrl: 'x' },
  } as unknown as PipelineResult;
  return [
    { index: 0, tag: 'p000', workflowId: 'run-p000', state: 'completed', result },
    {
      index: 1,
      tag: 'p001',
      workflowId: 'run-p001',
      state: 'failed',
      error: 'pipeline run-p001 failed in stage generation: generation task G1 ended failed: fail-generation',
      status: {
        stages: { generation: { state: 'failed' } },
        vendorTasks: [
          task('review', 'r1'),
          task('assetGroup', 'g1'),
          task('asset', 'a1h'),
          task('asset', 'a1b'),
          task('generation', 'G1'),
        ],
      } as never,
    },
  ];
}

function files(): Map<string, ArchivedFileOnDisk> {
  return new Map([
    ['/arch/p000/generated.mp4', { sha256: SHA_GEN, sidecar: SHA_GEN }],
    ['/arch/p000/erased.mp4', { sha256: SHA_ERA, sidecar: SHA_ERA }],
  ]);
}

const expectedArchive = { names: ['generated', 'erased'], sha256: { generated: SHA_GEN, erased: SHA_ERA } };
// Pipeline 1 of 20 would not be built to fail; plan 20 and keep p000 and p019's expectations.
const plan = planPipelines({ pipelines: 20, runTag: 'run' }).slice(0, 2);
plan[1] = { ...plan[1], expect: { state: 'failed', stage: 'generation', reason: 'test' } };

describe('chaos invariants', () => {
  test('a clean run passes every invariant', () => {
    const results = checkAll({ plan, outcomes: outcomes(), snapshot: snapshot(), files: files(), expectedArchive });
    expect(results.map((r) => [r.id, r.violations])).toEqual([
      ['terminal-state', 0],
      ['no-duplicates', 0],
      ['reported-ids-exist', 0],
      ['no-unknown-records', 0],
      ['natural-429', 0],
      ['no-result-lost', 0],
    ]);
    expect(results.every((r) => r.pass)).toBe(true);
  });

  test('attribution: review by URL tag, group by name, asset by group, generation by prompt, erase by its generation; review by-products left out', () => {
    const recs = attributeRecords(snapshot());
    expect(recs.map((r) => `${r.kind}:${r.id}:${r.tag}`).sort()).toEqual(
      [
        'review:r0:p000',
        'review:r1:p001',
        'assetGroup:g0:p000',
        'assetGroup:g1:p001',
        'asset:a0h:p000',
        'asset:a0b:p000',
        'asset:a1h:p001',
        'asset:a1b:p001',
        'generation:G0:p000',
        'generation:G1:p001',
        'erase:E0:p000',
      ].sort(),
    );
  });

  test('terminal state: a pipeline that should complete but failed, one not finished, and a failure of the wrong kind', () => {
    const o = outcomes();
    o[0] = { ...o[0], state: 'failed', error: 'boom' };
    o[1] = { ...o[1], error: 'pipeline run-p001 failed in stage erase: erase create rejected' };
    const r = checkTerminalStates(plan, o);
    expect(r.violations).toBe(2);
    expect(r.examples[0]).toMatch(/run-p000: failed \(boom\), expected completed/);
    expect(r.examples[1]).toMatch(/run-p001: failed, but not as built to/);
    expect(checkTerminalStates(plan, [o[1]]).examples[0]).toMatch(/run-p000: no outcome recorded/);
  });

  test('duplicates of each kind are counted, as are records of no pipeline', () => {
    const s = snapshot();
    s.reviewTasks.push({ ...s.reviewTasks[0], taskId: 'r0b' });
    s.groups.push({ ...s.groups[1], Id: 'g0b' });
    s.assets.push({ ...s.assets[1], Id: 'a0hb' });
    s.generationTasks.push({ ...s.generationTasks[0], id: 'G0b' });
    s.eraseTasks.push({ ...s.eraseTasks[0], taskId: 'E0b' });
    s.generationTasks.push({ ...s.generationTasks[0], id: 'Gx', prompt: 'someone else' });
    const r = checkNoDuplicates(s);
    expect(r.breakdown).toEqual({ review: 1, assetGroup: 1, asset: 1, generation: 1, erase: 1, unattributed: 1 });
    expect(r.violations).toBe(6);
    expect(r.pass).toBe(false);
    // The same asset name in another group, or a group name of another user, is no duplicate.
    const ok = snapshot();
    ok.assets.push({ ...ok.assets[1], Id: 'other', GroupId: 'g1' });
    ok.groups.push({ ...ok.groups[1], Id: 'g0-u2', owner: 'user#2' });
    expect(checkNoDuplicates(ok).breakdown).toMatchObject({ asset: 0, assetGroup: 0 });
  });

  test("reported ids: unknown at the vendor, or another pipeline's", () => {
    const o = outcomes();
    o[0].result!.vendorTasks.push(task('generation', 'nope'), task('review', 'r1'));
    const r = checkReportedIdsExist(o, snapshot());
    expect(r.examples).toEqual([
      'run-p000: reported generation nope, which the vendor does not have',
      'run-p000: reported review r1, which belongs to p001',
    ]);
  });

  test('a vendor task its pipeline does not know is reported', () => {
    const o = outcomes();
    o[1] = { ...o[1], status: undefined };
    const r = checkNoUnknownRecords(o, snapshot());
    expect(r.violations).toBe(5);
    expect(r.examples[0]).toMatch(/of p001 is not in that pipeline's result or status/);
  });

  test('429s: injected ones are faults, any other on any endpoint is a violation', () => {
    const s = snapshot();
    expect(checkNatural429(s)).toMatchObject({
      pass: true,
      violations: 0,
      breakdown: { total429: 3, injected429: 3, natural429: 0 },
    });
    s.counters.rateLimited429['assets.GetAsset'] = 5;
    s.counters.rateLimited429['review.get'] = 1;
    expect(checkNatural429(s)).toMatchObject({
      pass: false,
      violations: 3,
      breakdown: { natural429: 3, 'natural429 assets.GetAsset': 2, 'natural429 review.get': 1 },
    });
  });

  test("a natural 429 is shown with its task's requests in the 5 s before it", () => {
    const s = snapshot();
    s.counters.rateLimited429['review.get'] = 1;
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 27, 20, 0, 0, ms)).toISOString();
    const req = (seq: number, ms: number, resourceId: string, status: number, faults: string[] = []) => ({
      seq,
      at: at(ms),
      method: 'GET',
      path: `/v1/review/${resourceId}`,
      endpoint: 'review.get',
      status,
      resourceId,
      faults,
      durationMs: 3,
    });
    const requests = [
      req(1, 0, 'rv-1', 200),
      req(2, 100, 'rv-2', 200),
      req(3, 700, 'rv-1', 429),
      req(4, 800, 'rv-2', 429, ['rateLimit429']),
    ];
    const r = checkNatural429(s, requests);
    expect(r.violations).toBe(1);
    expect(r.examples).toEqual([
      `review.get rv-1 answered 429 at ${at(700)}; before it: -700 ms review.get → 200 (3 ms)`,
    ]);
  });

  test("result lost: missing from the result, missing on disk, checksum or sidecar mismatch, not the vendor's video", () => {
    const o = outcomes();
    const check = (f: Map<string, ArchivedFileOnDisk>, out = o) => checkNoResultLost(out, f, expectedArchive).examples;
    const missing = files();
    missing.delete('/arch/p000/erased.mp4');
    expect(check(missing)).toEqual(['run-p000: /arch/p000/erased.mp4 is missing']);
    const changed = files();
    changed.set('/arch/p000/erased.mp4', { sha256: 'c'.repeat(64), sidecar: SHA_ERA });
    expect(check(changed)[0]).toMatch(/sha256 c+ ≠ reported b+/);
    const sidecar = files();
    sidecar.set('/arch/p000/erased.mp4', { sha256: SHA_ERA });
    expect(check(sidecar)[0]).toMatch(/erased.mp4.sha256 says nothing/);
    const notListed = outcomes();
    notListed[0].result!.archived.pop();
    expect(check(files(), notListed)).toEqual(['run-p000: no archived "erased" in the result']);
    expect(
      checkNoResultLost(o, files(), { ...expectedArchive, sha256: { generated: 'd'.repeat(64), erased: SHA_ERA } })
        .examples[0],
    ).toMatch(/generated sha256 a+ ≠ the vendor's video d+/);
  });
});

describe('chaos plan', () => {
  test('every planned definition is valid; names, URLs and prompts carry the pipeline tag', () => {
    const planned = planPipelines({ pipelines: 200, runTag: 'chaos1-abc' });
    // One pipeline reuses an earlier one's workflow id (test/chaos/ledger-invariants.test.ts).
    expect(new Set(planned.map((p) => p.workflowId)).size).toBe(199);
    for (const p of planned) {
      const def = parseDefinition(p.definition);
      expect(tagIn(def.assets && 'name' in def.assets.group ? def.assets.group.name : '')).toBe(p.tag);
      expect(def.review!.media.every((u) => tagIn(u) === p.tag)).toBe(true);
      expect(tagIn((def.generation!.content[0] as { text: string }).text)).toBe(p.tag);
      expect(def.options.callbacks).toBe(true);
    }
    expect(planned.filter((p) => p.expect.state === 'failed').map((p) => p.index)).toEqual([
      19, 39, 59, 79, 99, 119, 139, 159, 179, 199,
    ]);
    // ≤ 98 groups per access token (100 minus the two system groups).
    expect(profileCount(200)).toBe(3);
    expect(new Set(planned.map((p) => p.profile))).toEqual(new Set(['c0', 'c1', 'c2']));
  });

  test('the fault mix is a valid emulator config, a function of the seed, with one 429 burst on GetAsset and two create endpoints', () => {
    const config = parseFaultConfig(chaosFaults({ seed: 3, pipelines: 200 }));
    expect(chaosFaults({ seed: 3, pipelines: 200 })).toEqual(config);
    const bursts = burstsOf(config);
    expect(Object.keys(bursts).sort()).toEqual(['assets.CreateAsset', 'assets.GetAsset', 'generation.create']);
    expect(bursts['assets.GetAsset'].size).toBeGreaterThanOrEqual(6);
    expect(bursts['assets.GetAsset'].after).toBeGreaterThanOrEqual(40); // 10 % of 200 pipelines × 2 assets
    expect(config['assets.GetAsset']?.rateLimit429?.probability).toBe(0.08);
  });

  test('the schedule is a function of the seed', () => {
    const a = planSchedule({ seed: 7, pipelines: 200, kills: 5, restartServer: true });
    expect(planSchedule({ seed: 7, pipelines: 200, kills: 5, restartServer: true })).toEqual(a);
    expect(planSchedule({ seed: 8, pipelines: 200, kills: 5, restartServer: true })).not.toEqual(a);
    expect(a.kills).toHaveLength(5);
    expect(a.startAtMs).toHaveLength(200);
    expect(a.startAtMs.filter((t) => t === 0)).toHaveLength(50); // a quarter at once, the rest spread
    expect(Math.max(...a.startAtMs)).toBeGreaterThan(60_000);
    expect(a.kills.map((k) => k.atMs)).toEqual([...a.kills.map((k) => k.atMs)].sort((x, y) => x - y));
    expect(a.restartAtMs).toBeGreaterThan(0);
    expect(planSchedule({ seed: 7, pipelines: 20, kills: 1, restartServer: false }).restartAtMs).toBeUndefined();
    const r = seededRandom(1);
    expect([r(), r()]).toEqual(
      (() => {
        const q = seededRandom(1);
        return [q(), q()];
      })(),
    );
  });
});
