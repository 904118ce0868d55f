import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FaultInjector, parseFaultConfig, type FaultConfig } from '../../src/emulator/faults';
import { newCounters } from '../../src/emulator/counters';
import type { RunningEmulator } from '../../src/emulator';
import { api, prompt, sleep, start } from './helpers';
import { API_KEY } from '../support/emulator';
import { answer, startServer, type LocalServer } from '../support/http-server';
import { SOON, until } from '../support/poll';

describe('FaultInjector (unit)', () => {
  const run = (seed: number, config: FaultConfig, calls = 200) => {
    const counters = newCounters();
    const injector = new FaultInjector(seed, config, () => counters);
    const fired = Array.from({ length: calls }, () => !!injector.roll('generation.create', 'error500AfterCreate'));
    return { fired, counters };
  };
  const half: FaultConfig = { 'generation.create': { error500AfterCreate: { probability: 0.5 } } };

  it('injects the same faults for the same seed, and others for another seed', () => {
    const a = run(7, half).fired;
    expect(run(7, half).fired).toEqual(a);
    expect(run(8, half).fired).not.toEqual(a);
    const rate = a.filter(Boolean).length / a.length;
    expect(rate).toBeGreaterThan(0.35);
    expect(rate).toBeLessThan(0.65);
  });

  it('keeps each endpoint on its own stream: traffic elsewhere does not shift faults', () => {
    const counters = newCounters();
    const both: FaultConfig = { ...half, 'erase.create': { upstream502: { probability: 0.5 } } };
    const injector = new FaultInjector(7, both, () => counters);
    const fired: boolean[] = [];
    for (let i = 0; i < 200; i++) {
      injector.roll('erase.create', 'upstream502');
      fired.push(!!injector.roll('generation.create', 'error500AfterCreate'));
    }
    expect(fired).toEqual(run(7, half).fired);
  });

  it('fires "skip then next N" exactly, then falls back to the probability', () => {
    const { fired, counters } = run(1, { 'generation.create': { error500AfterCreate: { skip: 2, next: 3 } } }, 8);
    expect(fired).toEqual([false, false, true, true, true, false, false, false]);
    expect(counters.faultsInjected).toEqual({ error500AfterCreate: 3 });
    expect(counters.faultsByEndpoint).toEqual({ 'generation.create': { error500AfterCreate: 3 } });
    expect(run(1, { 'generation.create': { error500AfterCreate: { next: 1, probability: 1 } } }, 4).fired).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('lets a specific key override the "*" rule', () => {
    const counters = newCounters();
    const injector = new FaultInjector(
      1,
      { '*': { upstream502: { probability: 1 } }, 'erase.get': { upstream502: { probability: 0 } } },
      () => counters,
    );
    expect(injector.roll('generation.get', 'upstream502')).toBeTruthy();
    expect(injector.roll('erase.get', 'upstream502')).toBeUndefined();
  });

  it('rejects unknown keys, unknown kinds, bad values and kinds under the wrong kind of key', () => {
    expect(() => parseFaultConfig({ 'generation.craete': {} })).toThrow(/unknown endpoint key/);
    expect(() => parseFaultConfig({ 'generation.create': { explode: {} } })).toThrow(/invalid fault config/);
    expect(() => parseFaultConfig({ 'generation.create': { upstream502: { probability: 2 } } })).toThrow();
    expect(() => parseFaultConfig({ 'generation.create': { callbackDrop: { next: 1 } } })).toThrow(/callback key/);
    expect(() => parseFaultConfig({ 'generation.callback': { upstream502: { next: 1 } } })).toThrow(
      /request endpoint key/,
    );
    expect(parseFaultConfig({ '*': { callbackDrop: { probability: 0.1 }, upstream502: { next: 1 } } })).toBeTruthy();
  });

  it('accepts the example config shipped for the CLI (--faults)', () => {
    const example = JSON.parse(readFileSync(path.join(__dirname, '../../src/emulator/faults.example.json'), 'utf8'));
    expect(Object.keys(parseFaultConfig(example))).toHaveLength(7);
  });
});

describe('fault injection over HTTP', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await start();
  });
  afterAll(() => emu.close());
  beforeEach(() => emu.reset());
  const tasks = () => emu.inspect().generationTasks.length;

  it('resetBeforeCreate: the connection drops and no task exists', async () => {
    emu.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
    await expect(api(emu).createGeneration(prompt('x'))).rejects.toThrow();
    expect(tasks()).toBe(0);
    const [req] = emu.inspect().requests;
    expect(req).toMatchObject({ endpoint: 'generation.create', status: 'reset', faults: ['resetBeforeCreate'] });
  });

  it('resetAfterCreate: the connection drops but the task exists — the ambiguous case', async () => {
    emu.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
    await expect(
      api(emu).createGeneration(prompt('x', { callback_url: 'https://hooks.example.com/a' })),
    ).rejects.toThrow();
    expect(tasks()).toBe(1);
    const [req] = emu.inspect().requests;
    expect(req).toMatchObject({
      status: 'reset',
      resourceId: emu.inspect().generationTasks[0].id,
      callbackUrl: 'https://hooks.example.com/a',
    });
  });

  it('error500AfterCreate: 500, yet the task exists', async () => {
    emu.setFaults({ 'generation.create': { error500AfterCreate: { next: 1 } } });
    const res = await api(emu).createGeneration(prompt('x'));
    expect(res).toMatchObject({ status: 500, body: { code: 500 } });
    expect(tasks()).toBe(1);
  });

  it('delayAfterCreate: the task exists while the answer is held past the client timeout', async () => {
    emu.setFaults({ 'generation.create': { delayAfterCreate: { next: 1, ms: 400 } } });
    const timedOut = fetch(`${emu.url}/v1/task/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(prompt('x')),
      signal: AbortSignal.timeout(100),
    });
    await expect(timedOut).rejects.toThrow();
    expect(tasks()).toBe(1);
    const req = await until('the request in the log', () => emu.inspect().requests[0], { ...SOON, timeoutMs: 2_000 });
    expect(req).toMatchObject({ status: 200, faults: ['delayAfterCreate'] });
    expect(req.durationMs).toBeGreaterThanOrEqual(380);
  });

  it('rateLimit429: a burst of 429s with Retry-After, in the interface error format, creating nothing', async () => {
    emu.setFaults({
      'generation.create': { rateLimit429: { next: 2, retryAfterSeconds: 3 } },
      'assets.ListAssets': { rateLimit429: { next: 1 } },
    });
    for (let i = 0; i < 2; i++) {
      const res = await api(emu).createGeneration(prompt('x'));
      expect(res).toMatchObject({ status: 429, body: { code: 429 } });
      expect(res.headers.get('retry-after')).toBe('3');
    }
    expect(tasks()).toBe(0);
    expect((await api(emu).createGeneration(prompt('x'))).status).toBe(200);
    const assets = await api(emu).asset('ListAssets', {});
    expect(assets).toMatchObject({ status: 429, body: { Code: 'RateLimitExceeded' } });
    expect(assets.headers.get('retry-after')).toBe('1');
    expect(emu.inspect().counters).toMatchObject({
      faultsInjected: { rateLimit429: 3 },
      rateLimited429: { 'generation.create': 2, 'assets.ListAssets': 1 },
    });
  });

  it('applies "*" to every endpoint, and faults to reads as well as creates', async () => {
    emu.setFaults({ '*': { upstream502: { next: 2 } } });
    expect((await api(emu).getGeneration('cgt-x')).status).toBe(502);
    expect((await api(emu).asset('ListAssets', {})).body.Code).toBe('UpstreamCallFailed');
    expect((await api(emu).asset('ListAssets', {})).status).toBe(200);
  });

  it('never answers UpstreamCallFailed for ListAssetGroups, which makes no upstream call', async () => {
    emu.setFaults({ '*': { upstream502: { probability: 1 } } });
    expect((await api(emu).asset('ListAssetGroups')).status).toBe(200);
    expect(() => emu.setFaults({ 'assets.ListAssetGroups': { upstream502: { next: 1 } } })).toThrow(/no upstream call/);
  });

  it('never applies "after" faults to a refused request', async () => {
    emu.setFaults({ 'generation.create': { error500AfterCreate: { next: 1 } } });
    expect((await api(emu).createGeneration({ model: 'm' })).status).toBe(400);
    expect(emu.inspect().counters.faultsInjected).toEqual({});
  });

  it('is configurable at runtime through POST /__emulator/faults, and validated there', async () => {
    const bad = await api(emu).admin('POST', 'faults', { 'generation.create': { nope: {} } });
    expect(bad.status).toBe(400);
    const ok = await api(emu).admin('POST', 'faults', { 'generation.create': { upstream502: { next: 1 } } });
    expect(ok.body.faults).toEqual({ 'generation.create': { upstream502: { next: 1 } } });
    expect((await api(emu).createGeneration(prompt('x'))).status).toBe(502);
    const seen = await api(emu).admin('GET', 'faults');
    expect(seen.body.counters.faultsInjected).toEqual({ upstream502: 1 });
  });

  it('gives the same sequence of answers for the same seed, on two emulators', async () => {
    const faults: FaultConfig = {
      'generation.create': { error500AfterCreate: { probability: 0.3 }, rateLimit429: { probability: 0.2 } },
    };
    const statuses = async (seed: number) => {
      const e = await start({ seed, faults });
      try {
        const out: number[] = [];
        for (let i = 0; i < 30; i++) out.push((await api(e).createGeneration(prompt(`p${i}`))).status);
        return out;
      } finally {
        await e.close();
      }
    };
    const first = await statuses(99);
    expect(await statuses(99)).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 500]));
    expect(await statuses(100)).not.toEqual(first);
  });
});

describe('callback faults', () => {
  let emu: RunningEmulator;
  let rx: LocalServer;
  beforeAll(async () => {
    emu = await start();
    rx = await startServer();
  });
  afterAll(async () => {
    await emu.close();
    await rx.close();
  });
  beforeEach(() => {
    emu.reset();
    rx.requests.length = 0;
  });

  it('drops, duplicates and delays callbacks, and counts each', async () => {
    emu.setFaults({
      'generation.callback': { callbackDrop: { next: 1 }, callbackDuplicate: { skip: 0, next: 1 } },
    });
    const { body } = await api(emu).createGeneration(prompt('x', { callback_url: rx.url })); // queued: dropped
    emu.advanceClock(1_000); // running: duplicated
    emu.advanceClock(2_000); // succeeded: plain
    // The receiver sees a POST before the emulator has read its answer: wait on the counter.
    await until('3 callbacks delivered', () => emu.inspect().counters.callbacks.delivered >= 3, SOON);
    expect(rx.requests.map((r) => JSON.parse(r.body).status)).toEqual(['running', 'running', 'succeeded']);
    expect(rx.requests[0].headers['x-emulator-callback-id']).toBe(rx.requests[1].headers['x-emulator-callback-id']);
    const { callbacks, counters } = emu.inspect();
    expect(callbacks.filter((c) => c.outcome === 'dropped')).toEqual([
      expect.objectContaining({ resourceId: body.id, state: 'queued' }),
    ]);
    expect(counters.callbacks).toMatchObject({ sent: 3, delivered: 3, dropped: 1, duplicated: 1 });
    // Each delivery keeps how long its answer took; one answered within 1 s counts as such.
    const answered = callbacks.filter((c) => c.outcome === 'delivered').map((c) => c.answeredInMs);
    expect(answered).toHaveLength(3);
    expect(counters.callbacks.deliveredWithin1s).toBe(answered.filter((ms) => ms !== undefined && ms <= 1_000).length);

    emu.reset();
    rx.requests.length = 0;
    emu.setFaults({ 'review.callback': { callbackDelay: { next: 1, ms: 600 } } });
    await api(emu).review('async', { images: ['https://e.com/a.png'], callback_url: rx.url });
    const sentAt = Date.now();
    emu.advanceClock(1_500);
    await sleep(100);
    expect(rx.requests).toHaveLength(0);
    await until('a callback received', () => rx.requests.length >= 1, SOON);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(590);
    expect(emu.inspect().counters.callbacks.delayed).toBe(1);
  });

  it('records failed deliveries (receiver answers 500)', async () => {
    const failing = await startServer(answer(500));
    try {
      await api(emu).createGeneration(prompt('x', { callback_url: failing.url }));
      await until('a failed delivery', () => emu.inspect().counters.callbacks.failed >= 1, SOON);
      expect(emu.inspect().callbacks[0]).toMatchObject({ outcome: 'failed', httpStatus: 500 });
    } finally {
      await failing.close();
    }
  });
});
