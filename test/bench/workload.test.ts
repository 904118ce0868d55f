import { parseDefinition } from '../../src/definition/definition';
import {
  DEFAULT_WORKLOAD,
  idealMs,
  minimumCalls,
  pipelineDefinition,
  PROMPT_INDEX,
  stageProcessingMs,
  URL_INDEX,
  workloadProblems,
  type Workload,
} from '../../tools/bench/workload';

const workload = (over: Partial<Workload> = {}): Workload => ({ ...DEFAULT_WORKLOAD, ...over });

describe('ideal time', () => {
  test('default mix: the sum of every processing time along one chain', () => {
    // review 500 + 1500, asset 2000, generation 1000 + 3000, erase 300 + 700 + 2000
    expect(idealMs(workload())).toBe(11_000);
    expect(stageProcessingMs(workload())).toEqual({ review: 2_000, assets: 2_000, generation: 4_000, erase: 3_000 });
  });

  test('parallel assets of one stage count once; skipped stages not at all; the tick never', () => {
    expect(idealMs(workload({ assetsPerPipeline: 5 }))).toBe(11_000);
    expect(idealMs(workload({ stages: ['generation', 'erase'] }))).toBe(7_000);
    expect(idealMs(workload({ timings: { ...DEFAULT_WORKLOAD.timings, tickMs: 500 } }))).toBe(11_000);
  });
});

describe('minimum calls', () => {
  test('one create and one final query per task, one download per archived video', () => {
    expect(minimumCalls(workload({ assetsPerPipeline: 2 }))).toEqual({
      'review.async': 1,
      'review.get': 1,
      'assets.CreateAsset': 2,
      'assets.GetAsset': 2,
      'generation.create': 1,
      'generation.get': 1,
      'erase.create': 1,
      'erase.get': 1,
      'media.get': 2,
    });
  });

  test('no archive: no downloads; no erase: one download', () => {
    expect(minimumCalls(workload({ archive: false }))['media.get']).toBeUndefined();
    expect(minimumCalls(workload({ stages: ['generation'] }))).toEqual({
      'generation.create': 1,
      'generation.get': 1,
      'media.get': 1,
    });
  });
});

describe('pipeline definitions', () => {
  test('valid for reelflow, with the index in every URL and in the prompt', () => {
    const def = pipelineDefinition(workload({ assetsPerPipeline: 2 }), {
      tag: 't1',
      index: 17,
      callbacks: true,
      groupId: 'g-1',
    });
    const parsed = parseDefinition(def);
    expect(parsed.options.callbacks).toBe(true);
    expect(parsed.erase).toBe(true);
    expect(URL_INDEX.exec(parsed.review!.media[0])?.[1]).toBe('17');
    for (const item of parsed.assets!.items) expect(URL_INDEX.exec((item as { url: string }).url)?.[1]).toBe('17');
    const text = parsed.generation!.content.find((c) => c.type === 'text') as { text: string };
    expect(PROMPT_INDEX.exec(text.text)?.[1]).toBe('17');
    // the first frame comes from the review, each asset is a reference image
    expect(parsed.generation!.content.map((c) => c.role)).toEqual([
      undefined,
      'first_frame',
      'reference_image',
      'reference_image',
    ]);
  });

  test('only the chosen stages; the assets stage needs a group', () => {
    const def = parseDefinition(
      pipelineDefinition(workload({ stages: ['generation'], archive: false }), {
        tag: 't',
        index: 0,
        callbacks: false,
      }),
    );
    expect(def.review).toBeUndefined();
    expect(def.assets).toBeUndefined();
    expect(def.erase).toBe(false);
    expect(def.options.archive).toBe(false);
    expect(() => pipelineDefinition(workload(), { tag: 't', index: 0, callbacks: false })).toThrow(/groupId/);
  });

  test('workload problems name the flag', () => {
    expect(workloadProblems(workload())).toEqual([]);
    expect(workloadProblems(workload({ stages: ['erase'] }))).toEqual(
      expect.arrayContaining(['--stages: erase needs generation']),
    );
    expect(workloadProblems(workload({ assetsPerPipeline: 0 }))).toEqual(['--assets: 1..20 items per pipeline']);
  });
});
