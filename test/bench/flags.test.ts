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

  test('--scenario tenants: 1000 for A, 10 for B 20 s later, every variant, callbacks on, no baseline', () => {
    const f = parseBenchFlags(['--scenario', 'tenants']);
    expect(f.scenario).toBe('tenants');
    expect(f.tenants).toEqual({
      aPipelines: 1000,
      bPipelines: 10,
      bDelayMs: 20_000,
      variants: ['priority', 'fairness', 'off'],
    });
    expect(f.pipelines).toBe(1010);
    expect(f.modes).toEqual(['on']);
    expect(f.baseline).toBe(false);
    expect(f.timeoutMs).toBe(1_610_000);
    expect(f.workload.stages).toEqual(['review', 'assets', 'generation', 'erase']);
    expect(parseBenchFlags([]).scenario).toBe('default');
    expect(parseBenchFlags([]).tenants).toBeUndefined();
  });

  test('--scenario tenants: sizes, delay, variants in their own order, one callback mode', () => {
    const f = parseBenchFlags([
      '--scenario',
      'tenants',
      '--tenant-a-pipelines',
      '100',
      '--tenant-b-pipelines',
      '5',
      '--tenant-b-delay',
      '0',
      '--variants',
      'off, priority',
      '--callbacks',
      'off',
      '--temporal',
      'cluster',
    ]);
    expect(f.tenants).toEqual({ aPipelines: 100, bPipelines: 5, bDelayMs: 0, variants: ['priority', 'off'] });
    expect(f.pipelines).toBe(105);
    expect(f.modes).toEqual(['off']);
    expect(f.temporal).toBe('cluster');
  });

  test.each([
    [['--scenario', 'crowd'], /--scenario: default, tenants or budgets/],
    [['--tenant-a-pipelines', '10'], /--tenant-a-pipelines: only with --scenario tenants/],
    [['--variants', 'off'], /--variants: only with --scenario tenants/],
    [['--scenario', 'tenants', '--pipelines', '10'], /--pipelines: not with --scenario tenants/],
    [['--scenario', 'tenants', '--baseline', 'off'], /--baseline: not with --scenario tenants/],
    [['--scenario', 'tenants', '--callbacks', 'both'], /not both/],
    [['--scenario', 'tenants', '--variants', 'loud'], /--variants: unknown loud/],
    [['--scenario', 'tenants', '--variants', ','], /--variants: at least one/],
    [['--scenario', 'tenants', '--tenant-b-pipelines', '0'], /--tenant-b-pipelines/],
    [['--scenario', 'tenants', '--tenant-b-delay', '-1'], /--tenant-b-delay/],
    [['--scenario', 'tenants', '--worker-env', 'REELFLOW_TENANTS_FILE=/x'], /set by the bench/],
  ])('%j is a usage error of the tenants scenario', (argv, message) => {
    expect(() => parseBenchFlags(argv)).toThrow(message);
  });

  test('--scenario budgets: 200 pipelines, callbacks off, none, count and budget once, no baseline', () => {
    const f = parseBenchFlags(['--scenario', 'budgets']);
    expect(f.budgets).toEqual({ tenancies: ['none', 'count', 'budget'], rounds: 1 });
    expect([f.pipelines, f.modes, f.baseline]).toEqual([200, ['off'], false]);
    const g = parseBenchFlags([
      ...['--scenario', 'budgets', '--pipelines', '1000', '--tenancy', 'budget,none', '--rounds', '3'],
      ...['--callbacks', 'on', '--baseline', 'off'],
    ]);
    expect(g.budgets).toEqual({ tenancies: ['none', 'budget'], rounds: 3 });
    expect([g.pipelines, g.modes]).toEqual([1000, ['on']]);
  });

  test.each([
    [['--tenancy', 'none'], /--tenancy: only with --scenario budgets/],
    [['--scenario', 'tenants', '--rounds', '2'], /--rounds: only with --scenario budgets/],
    [['--scenario', 'budgets', '--variants', 'off'], /--variants: only with --scenario tenants/],
    [['--scenario', 'budgets', '--baseline', 'on'], /--baseline: off with --scenario budgets/],
    [['--scenario', 'budgets', '--callbacks', 'both'], /not both/],
    [['--scenario', 'budgets', '--tenancy', 'all'], /--tenancy: unknown all/],
    [['--scenario', 'budgets', '--tenancy', ','], /--tenancy: at least one/],
    [['--scenario', 'budgets', '--rounds', '0'], /--rounds/],
    [['--scenario', 'budgets', '--worker-env', 'REELFLOW_TENANTS_FILE=/x'], /set by the bench/],
  ])('%j is a usage error of the budgets scenario', (argv, message) => {
    expect(() => parseBenchFlags(argv)).toThrow(message);
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
