/** planRerun (pure): which finished outputs a rerun reuses, and when it refuses. */
import { parseDefinition } from '../../src/definition/definition';
import { planRerun, RerunRefusedError, type RerunFrom } from '../../src/starters/client/rerun';
import type { PipelineResult } from '../../src/contract/messages';
import { fullDefinition } from '../support/harness';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const RUN = '0c8e4c36-5b7e-4f5e-9d55-0d6c1d6f8a01';
const SRC = { pipelineId: 'p1', runId: RUN };
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
    planRerun(SRC, d, r, from, now);
  } catch (err) {
    if (err instanceof RerunRefusedError) return err;
    throw err;
  }
  throw new Error('not refused');
}

test('every finished stage before --from is reused, nothing after it', () => {
  const plan = planRerun(SRC, def, complete, 'erase', NOW);
  expect(plan).toMatchObject({ from: 'erase', reused: ['review', 'assets', 'generation'] });
  // The run is named, never its outputs: the new run reads them from that run itself.
  expect(plan.reuse).toEqual({ fromPipelineId: 'p1', fromRunId: RUN, stages: ['review', 'assets', 'generation'] });
  expect(planRerun(SRC, def, complete, 'archive', NOW).reuse.stages).toContain('erase');
  expect(planRerun(SRC, def, complete, 'review', NOW).reuse).toEqual({
    fromPipelineId: 'p1',
    fromRunId: RUN,
    stages: [],
  });
});

test('without --from: the first step that did not finish', () => {
  expect(planRerun(SRC, def, result({ review, assets }), undefined, NOW).from).toBe('generation');
  expect(planRerun(SRC, def, result({ review, assets, generation }), undefined, NOW).from).toBe('erase');
  // Everything ran but the archive of the erased video.
  const partial = result({ review, assets, generation, erase, archived: archived.slice(0, 1) });
  expect(planRerun(SRC, def, partial, undefined, NOW)).toMatchObject({
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
  expect(planRerun(SRC, def, complete, 'archive', late).from).toBe('archive'); // still downloadable
  expect(refusal('archive', complete, def, NOW + 21 * hour).reason).toBe('expired');
  const noArchive = parseDefinition({ ...fullDefinition(), options: { archive: false } });
  // Nothing uses the URL any more: erase reused, no archive.
  expect(() => planRerun(SRC, noArchive, complete, undefined, NOW + 30 * hour)).toThrow(/every step/);
});

describe('a paid task the earlier run left that may still succeed (never paid twice)', () => {
  const task = (step: 'generation' | 'erase', state?: string, orphan?: boolean) => ({
    kind: step,
    id: `${step}-t1`,
    step,
    attempt: 1,
    via: 'create' as const,
    ...(state !== undefined ? { state } : {}),
    ...(orphan ? { orphan } : {}),
  });
  const cancelledInGeneration = (state?: string) =>
    result({ review, assets, vendorTasks: [task('generation', state)] });

  test('rerun from its step adopts it: not terminal, or never seen in a state', () => {
    for (const state of ['running', 'queued', undefined]) {
      const plan = planRerun(SRC, def, cancelledInGeneration(state), undefined, NOW);
      expect(plan.from).toBe('generation');
      expect(plan.adopts.map((t) => t.id)).toEqual(['generation-t1']);
    }
  });

  test('a rerun that would redo its inputs is refused, naming the task and its state', () => {
    const err = refusal('assets', cancelledInGeneration('running'));
    expect(err.reason).toBe('task-running');
    expect(err.task).toEqual({ id: 'generation-t1', step: 'generation', state: 'running' });
    expect(err.message).toMatch(/^generation task generation-t1 of p1 is running and may still succeed/);
    expect(refusal('review', cancelledInGeneration()).message).toContain('is in an unknown state');
  });

  test('the same holds for erase: adopted from erase, refused from generation', () => {
    const r = result({
      review,
      assets,
      generation,
      vendorTasks: [task('generation', 'succeeded'), task('erase', 'processing')],
    });
    expect(planRerun(SRC, def, r, undefined, NOW).adopts.map((t) => t.id)).toEqual(['erase-t1']);
    expect(refusal('generation', r).task).toMatchObject({ id: 'erase-t1', state: 'processing' });
  });

  test('a task that ended (or an orphan of a superseded attempt) is not adopted', () => {
    for (const state of ['failed', 'expired']) {
      expect(planRerun(SRC, def, cancelledInGeneration(state), 'assets', NOW).adopts).toEqual([]);
    }
    const orphan = result({ review, assets, vendorTasks: [task('generation', 'running', true)] });
    expect(planRerun(SRC, def, orphan, undefined, NOW).adopts).toEqual([]);
  });
});
