/**
 * Queries of one vendor task leave a worker process at least the interface's minimum
 * interval apart (src/activities/query-spacing.ts): the helper itself, then the review query
 * activity against an emulator on the real clock, which answers 429 to a second query of a
 * task within 1 s.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { QuerySpacing } from '../../src/activities/query-spacing';
import { createVendorActivities } from '../../src/activities/vendor';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { createVendorClient, type VendorClient } from '../../src/vendor-api';
import { MIN_QUERY_INTERVAL_MS } from '../../src/vendor-api/assumed-values';
import { API_KEY, USER_1 } from '../support/emulator';

/** Starts a query of each key at once, each taking `takesMs`; reports when each began (ms after the first call). */
async function starts(spacing: QuerySpacing, keys: string[], minMs: number, takesMs = 0): Promise<number[]> {
  const t0 = Date.now();
  return Promise.all(
    keys.map((k) =>
      spacing.spaced(k, minMs, async () => {
        const began = Date.now() - t0;
        await new Promise((r) => setTimeout(r, takesMs));
        return began;
      }),
    ),
  );
}

describe('QuerySpacing', () => {
  it('spaces queries of one key by the interval, concurrent ones too, and leaves other keys alone', async () => {
    const spacing = new QuerySpacing();
    const [a1, b1, a2, a3] = await starts(spacing, ['a', 'b', 'a', 'a'], 150);
    // Loose upper bounds: a loaded test machine delays timers, never by a whole interval here.
    expect(a1).toBeLessThan(140);
    expect(b1).toBeLessThan(140);
    // Timers may fire a millisecond early; never a whole interval early.
    expect(a2).toBeGreaterThanOrEqual(145);
    expect(a3).toBeGreaterThanOrEqual(295);
  });

  it('counts the interval from the end of the previous query, which the vendor may have seen late', async () => {
    const spacing = new QuerySpacing();
    const t0 = Date.now();
    await starts(spacing, ['a'], 150, 200);
    const [next] = await starts(spacing, ['a'], 150);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200 + 145);
    expect(next).toBeGreaterThanOrEqual(140);
  });

  it('lets a key go at once when its last query ended longer ago than the interval', async () => {
    let now = 1_000;
    const spacing = new QuerySpacing(() => now);
    await spacing.spaced('a', 500, () => Promise.resolve());
    now += 500;
    const started = Date.now();
    await spacing.spaced('a', 500, () => Promise.resolve());
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('settled: resolves an interval after the last query of the key ended, at once for an unknown key', async () => {
    let now = 1_000;
    const spacing = new QuerySpacing(() => now);
    const t0 = Date.now();
    await spacing.settled('never queried', 10_000);
    expect(Date.now() - t0).toBeLessThan(400);
    await spacing.spaced('a', 150, () => Promise.resolve((now += 100))); // the query ends at 1,100
    now = 1_200;
    const t1 = Date.now();
    await spacing.settled('a', 150); // 50 ms left of the interval
    expect(Date.now() - t1).toBeGreaterThanOrEqual(45);
    now = 1_250;
    const t2 = Date.now();
    await spacing.settled('a', 150);
    expect(Date.now() - t2).toBeLessThan(40);
  });

  it('gives up its wait when the activity is cancelled, without querying', async () => {
    const spacing = new QuerySpacing();
    await spacing.spaced('a', 10_000, () => Promise.resolve());
    const abort = new AbortController();
    let queried = false;
    const waiting = spacing.spaced('a', 10_000, () => Promise.resolve((queried = true)), abort.signal);
    abort.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(queried).toBe(false);
  });
});

describe('review query activity on the real clock', () => {
  let emu: RunningEmulator;
  let vendor: VendorClient;
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const profile = 'default';
  const run = <A, R>(fn: (input: A) => Promise<R>, input: A): Promise<R> => env.run(fn, input);

  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
    vendor = createVendorClient({ baseUrl: emu.url, identityUrl: emu.url, apiKey: API_KEY, accessToken: USER_1 });
  });
  afterAll(async () => {
    await vendor.close();
    await emu.close();
  });

  it('two queries of one task asked back to back both get an answer, the second after the interval', async () => {
    const activities = createVendorActivities({ vendorFor: () => vendor, archiveRoot: '/nonexistent' });
    const { taskId } = await run(activities.reviewSubmit, {
      profile,
      urls: ['https://cdn.example.com/spacing.png'],
      assetType: 'Image',
    });
    const t0 = Date.now();
    const first = await run(activities.reviewGetTask, { profile, taskId });
    const second = await run(activities.reviewGetTask, { profile, taskId });
    expect(first.taskId).toBe(taskId);
    expect(second.taskId).toBe(taskId);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(MIN_QUERY_INTERVAL_MS.review - 5);
    expect(emu.inspect().counters.rateLimited429['review.get'] ?? 0).toBe(0);
  });
});
