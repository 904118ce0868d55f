import { parseBenchFlags, UsageError } from '../../tools/bench/flags';

describe('bench flags', () => {
  test('defaults: 200 pipelines, both callback modes, the default mix, one worker, baseline on', () => {
    const f = parseBenchFlags([]);
    expect(f.pipelines).toBe(200);
    expect(f.modes).toEqual(['off', 'on']);
    expect(f.workload.stages).toEqual(['review', 'assets', 'generation', 'erase']);
    expect(f.workload.assetsPerPipeline).toBe(1);
    expect(f.workload.archive).toBe(true);
    expect(f.workers).toBe(1);
    expect(f.baseline).toBe(true);
    expect(f.getAssetRate).toBeUndefined();
    expect(f.timeoutMs).toBe(800_000);
    expect(f.temporal).toBe('dev');
    expect(f.shards).toBeUndefined();
  });

  test('--temporal cluster with a shard count', () => {
    const f = parseBenchFlags(['--temporal', 'cluster', '--shards', '8']);
    expect(f.temporal).toBe('cluster');
    expect(f.shards).toBe(8);
  });

  test('--worker-env: REELFLOW_* and NODE_OPTIONS pass, credentials and other variables are refused', () => {
    const f = parseBenchFlags([
      '--worker-env',
      'REELFLOW_MAX_CACHED_WORKFLOWS=60',
      '--worker-env',
      'NODE_OPTIONS=--max-semi-space-size=4',
    ]);
    expect(f.workerEnv).toEqual({ REELFLOW_MAX_CACHED_WORKFLOWS: '60', NODE_OPTIONS: '--max-semi-space-size=4' });
    expect(() => parseBenchFlags(['--worker-env', 'PATH=/tmp'])).toThrow(/NODE_OPTIONS=flags/);
    expect(() => parseBenchFlags(['--worker-env', 'REELFLOW_CALLBACK_SECRET=x'])).toThrow(/set by the bench/);
  });

  test('stages keep pipeline order whatever the order given', () => {
    const f = parseBenchFlags(['--stages', 'erase,generation', '--callbacks', 'on', '--pipelines', '1000']);
    expect(f.workload.stages).toEqual(['generation', 'erase']);
    expect(f.modes).toEqual(['on']);
    expect(f.pipelines).toBe(1000);
  });

  test('timings file: laid over the defaults, unknown fields refused', () => {
    const f = parseBenchFlags(['--timings', 't.json'], () => '{"generationRunningMs": 10000}');
    expect(f.workload.timings.generationRunningMs).toBe(10_000);
    expect(f.workload.timings.reviewPendingMs).toBe(500);
    expect(() => parseBenchFlags(['--timings', 't.json'], () => '{"nope": 1}')).toThrow(/unknown nope/);
  });

  test.each([
    [['--pipelines', '0'], /--pipelines/],
    [['--callbacks', 'maybe'], /--callbacks/],
    [['--stages', 'review,upload'], /unknown upload/],
    [['--stages', 'erase'], /erase needs generation/],
    [['--workers', '3'], /--workers/],
    [['--getasset-rate', '11'], /at most 10/],
    [['--archive', 'yes'], /--archive/],
    [['--bogus'], /bogus/],
    [['--temporal', 'cloud'], /--temporal: dev or cluster/],
    [['--shards', '4'], /--shards: only with --temporal cluster/],
    [['--temporal', 'cluster', '--shards', '0'], /--shards/],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseBenchFlags(argv)).toThrow(UsageError);
    expect(() => parseBenchFlags(argv)).toThrow(message);
  });
});
