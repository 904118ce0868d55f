/** The receiver's replay memory and per-URL token bucket, on a fake clock. */
import { DEFAULT_GUARD_LIMITS, RelayGuard } from '../../src/callbacks/guard';

const url = { workflowId: 'p1.generation', step: 'generation', attempt: 1 };

function guard(limits = DEFAULT_GUARD_LIMITS) {
  const clock = { now: 1_000_000 };
  return { clock, g: new RelayGuard(limits, () => clock.now) };
}

test('the documented defaults: a burst of 10 per URL, then one every 5 s; replays remembered 15 min', () => {
  expect(DEFAULT_GUARD_LIMITS).toMatchObject({
    burst: 10,
    refillMs: 5_000,
    memoryTtlMs: 15 * 60_000,
    memory: 10_000,
    buckets: 10_000,
  });
});

test('an exact replay is a duplicate until it is forgotten or its memory expires', () => {
  const { clock, g } = guard();
  expect(g.admit(url, 't-1', 'running')).toEqual({ ok: true });
  expect(g.admit(url, 't-1', 'running')).toEqual({ ok: false, reason: 'duplicate' });
  expect(g.admit(url, 't-1', 'succeeded')).toEqual({ ok: true });
  expect(g.admit({ ...url, attempt: 2 }, 't-1', 'running')).toEqual({ ok: true });
  g.forget(url, 't-1', 'running');
  expect(g.admit(url, 't-1', 'running')).toEqual({ ok: true });
  clock.now += DEFAULT_GUARD_LIMITS.memoryTtlMs + 1;
  expect(g.admit(url, 't-1', 'running')).toEqual({ ok: true });
});

test('a URL gets its burst, then one per refill interval, with Retry-After in whole seconds', () => {
  const { clock, g } = guard();
  for (let i = 0; i < 10; i++) expect(g.admit(url, 't', `s${i}`)).toEqual({ ok: true });
  expect(g.admit(url, 't', 'over')).toEqual({ ok: false, reason: 'rate', retryAfterS: 5 });
  expect(g.refusedInARow(url)).toBe(1);
  expect(g.admit({ ...url, step: 'erase' }, 't', 'x')).toEqual({ ok: true }); // another URL
  clock.now += 2_000;
  expect(g.admit(url, 't', 'over')).toEqual({ ok: false, reason: 'rate', retryAfterS: 3 });
  expect(g.refusedInARow(url)).toBe(2);
  clock.now += 3_000;
  expect(g.admit(url, 't', 'over')).toEqual({ ok: true });
  expect(g.refusedInARow(url)).toBe(0);
  expect(g.admit(url, 't', 'again')).toMatchObject({ ok: false, reason: 'rate' });
});

test('memory and buckets stay bounded: the least recently used go first', () => {
  const { g } = guard({ ...DEFAULT_GUARD_LIMITS, memory: 3, buckets: 2 });
  for (const id of ['a', 'b', 'c', 'd']) expect(g.admit(url, id, 's')).toEqual({ ok: true });
  expect(g.admit(url, 'a', 's')).toEqual({ ok: true }); // forgotten: the oldest of four
  expect(g.admit(url, 'd', 's')).toEqual({ ok: false, reason: 'duplicate' });
});
