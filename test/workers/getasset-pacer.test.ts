import { GetAssetPacer, IntervalGate, JOIN_MARGIN_MS, livePollers } from '../../src/workers/getasset-pacer';

describe('livePollers', () => {
  test('distinct identities seen within the live window of the newest poll, this process always counted', () => {
    const seen = [
      { identity: 'a@h', lastAccessMs: 100_000 },
      { identity: 'a@h', lastAccessMs: 99_000 },
      { identity: 'b@h', lastAccessMs: 40_000 }, // 60 s before the newest: an idle long poll, alive
      { identity: 'dead@h', lastAccessMs: 20_000 }, // 80 s: gone
    ];
    expect(livePollers(seen, 'a@h')).toBe(2);
    expect(livePollers(seen, 'new@h')).toBe(3);
    expect(livePollers([], 'new@h')).toBe(1);
  });
});

describe('IntervalGate', () => {
  test('releases one at a time, each at least the interval after the previous one', async () => {
    const gate = new IntervalGate();
    const released: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 5 }, () => gate.turn(() => 40).then(() => released.push(performance.now()))),
    );
    expect(released[0] - t0).toBeLessThan(30); // the first goes at once
    for (let i = 1; i < released.length; i++) expect(released[i] - released[i - 1]).toBeGreaterThanOrEqual(39);
  });

  test('a call after a quiet spell goes at once', async () => {
    const gate = new IntervalGate();
    await gate.turn(() => 20);
    await new Promise((r) => setTimeout(r, 30));
    const t = performance.now();
    await gate.turn(() => 20);
    expect(performance.now() - t).toBeLessThan(15);
  });
});

describe('GetAssetPacer', () => {
  test("each process's share: the spacing grows with the processes the server has seen", async () => {
    let seen = [{ identity: 'me', lastAccessMs: 1 }];
    const pacer = new GetAssetPacer({ ratePerSecond: 8, identity: 'me', describe: () => Promise.resolve(seen) });
    expect(pacer.intervalMs('p')).toBe(125); // before any answer: alone
    seen = [...seen, { identity: 'other', lastAccessMs: 2 }];
    await pacer.refresh(['p']);
    expect(pacer.intervalMs('p')).toBe(250);
  });

  test('the server not answering keeps the last count', async () => {
    let fail = false;
    const pacer = new GetAssetPacer({
      ratePerSecond: 10,
      identity: 'me',
      describe: () =>
        fail ? Promise.reject(new Error('unavailable')) : Promise.resolve([{ identity: 'x', lastAccessMs: 1 }]),
    });
    await pacer.refresh(['p']);
    fail = true;
    await pacer.refresh(['p']);
    expect(pacer.intervalMs('p')).toBe(200);
  });

  test('a process that has just started sends nothing until the others have counted it', async () => {
    const pacer = new GetAssetPacer({
      ratePerSecond: 20,
      identity: 'me',
      describe: () => Promise.resolve([]),
      refreshMs: 100,
    });
    const paced = pacer.wrap((_input: { profile: string }) => Promise.resolve(performance.now()));
    const t = performance.now();
    pacer.start(['p']);
    try {
      const first = await paced({ profile: 'p' });
      expect(first - t).toBeGreaterThanOrEqual(100 + JOIN_MARGIN_MS - 5); // the others' refresh, and the margin
      const next = performance.now();
      await paced({ profile: 'p' });
      expect(performance.now() - next).toBeLessThan(100); // then only the spacing (50 ms)
    } finally {
      pacer.stop();
    }
  });

  test('wrap: each profile has its own gate', async () => {
    const pacer = new GetAssetPacer({ ratePerSecond: 20, identity: 'me', describe: () => Promise.resolve([]) });
    const calls: string[] = [];
    const paced = pacer.wrap((input: { profile: string; id: string }) => {
      calls.push(`${input.profile}:${input.id}`);
      return Promise.resolve(input.id);
    });
    const t = performance.now();
    await Promise.all([paced({ profile: 'a', id: '1' }), paced({ profile: 'b', id: '1' })]);
    expect(performance.now() - t).toBeLessThan(40); // two profiles: no wait between them
    await Promise.all([paced({ profile: 'a', id: '2' }), paced({ profile: 'a', id: '3' })]);
    expect(performance.now() - t).toBeGreaterThanOrEqual(95); // a's third call: two 50 ms gaps
    expect(calls).toEqual(['a:1', 'b:1', 'a:2', 'a:3']);
  });
});
