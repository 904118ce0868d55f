/** planRerun (pure): which finished outputs a rerun reuses, and when it refuses. */
import { parseDefinition } from '../../src/definition/definition';
import { planRerun, RerunRefusedError, type RerunFrom } from '../../src/starters/rerun';
import type { PipelineResult } from '../../src/workflows/messages';
import { fullDefinition } from '../workflows/harness';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const def = parseDefinition(fullDefinition());
const hour = 3_600_000;

function result(parts: Partial<PipelineResult> = {}): PipelineResult {
  return { pipelineId: 'p1', vendorTasks: [], archived: [], timings: {}, calls: {}, cost: {}, ...parts };
}

const review = { batches: [], items: [{ index: 0, sourceUrl: 'u', passed: true, assetUrl: 'Asset://a1' }] };
const assets = { groupId: 'g', groupCreated: true, items: [] };
const generation = {
  taskId: 'cgt-1',
  videoUrl: 'https://v/1.mp4',
  videoUrlExpiresAt: new Date(NOW + 20 * hour).toISOString(),
};
const erase = { taskId: 'er-1', videoUrl: 'https://v/2.mp4' };
const archived = ['generated.mp4', 'erased.mp4'].map((name) => ({
  name,
  path: name,
  sha256: '',
  bytes: 1,
  sourceUrl: '',
}));
const complete = result({ review, assets, generation, erase, archived });

function refusal(from: RerunFrom | undefined, r: PipelineResult, d = def, now = NOW): RerunRefusedError {
  try {
    planRerun('p1', d, r, from, now);
  } catch (err) {
    if (err instanceof RerunRefusedError) return err;
    throw err;
  }
  throw new Error('not refused');
}

test('every finished stage before --from is reused, nothing after it', () => {
  const plan = planRerun('p1', def, complete, 'erase', NOW);
  expect(plan).toMatchObject({ from: 'erase', reused: ['review', 'assets', 'generation'] });
  expect(plan.reuse).toEqual({ fromPipelineId: 'p1', review, assets, generation });
  expect(planRerun('p1', def, complete, 'archive', NOW).reuse.erase).toEqual(erase);
  expect(planRerun('p1', def, complete, 'review', NOW).reuse).toEqual({ fromPipelineId: 'p1' });
});

test('without --from: the first step that did not finish', () => {
  expect(planRerun('p1', def, result({ review, assets }), undefined, NOW).from).toBe('generation');
  expect(planRerun('p1', def, result({ review, assets, generation }), undefined, NOW).from).toBe('erase');
  // Everything ran but the archive of the erased video.
  const partial = result({ review, assets, generation, erase, archived: archived.slice(0, 1) });
  expect(planRerun('p1', def, partial, undefined, NOW)).toMatchObject({
    from: 'archive',
    reused: expect.arrayContaining(['erase']),
  });
  expect(refusal(undefined, complete).reason).toBe('all-finished');
});

test('a step before --from that did not finish is refused, naming it', () => {
  const err = refusal('erase', result({ review, assets }));
  expect(err.reason).toBe('not-finished');
  expect(err.message).toMatch(/^generation of p1 did not finish/);
});

test('a step the definition does not have is refused as --from', () => {
  const noErase = parseDefinition({ ...fullDefinition(), erase: false, options: { archive: false } });
  expect(refusal('erase', complete, noErase).reason).toBe('not-defined');
  expect(refusal('archive', complete, noErase).message).toMatch(/^from: .* no archive step/);
});

test('an expired generated video URL is refused when erase or the archive would use it', () => {
  const late = NOW + 20 * hour - 5 * 60_000; // within the erase safety margin, not yet expired
  const err = refusal('erase', complete, def, late);
  expect(err).toMatchObject({ reason: 'expired', output: 'generation.videoUrl' });
  expect(planRerun('p1', def, complete, 'archive', late).from).toBe('archive'); // still downloadable
  expect(refusal('archive', complete, def, NOW + 21 * hour).reason).toBe('expired');
  const noArchive = parseDefinition({ ...fullDefinition(), options: { archive: false } });
  // Nothing uses the URL any more: erase reused, no archive.
  expect(() => planRerun('p1', noArchive, complete, undefined, NOW + 30 * hour)).toThrow(/every step/);
});
