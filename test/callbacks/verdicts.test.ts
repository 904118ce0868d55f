/** What the receiver remembers of the stage's verdicts, and how many callbacks it relays at once: pure code. */
import { Lanes } from '../../src/callbacks/lanes';
import { isPassingState } from '../../src/callbacks/steps';
import { VerdictMemory } from '../../src/callbacks/verdicts';

const url = { workflowId: 'p1', step: 'generation', attempt: 1, run: 'run-1' };

function memory(entries = 100) {
  const clock = { now: 1_000_000 };
  return { clock, m: new VerdictMemory({ entries, ttlMs: 60_000 }, () => clock.now) };
}

test('passing states are read from the step name, per vendor interface', () => {
  expect(isPassingState('generation', 'running')).toBe(true);
  expect(isPassingState('generation', 'succeeded')).toBe(false);
  expect(isPassingState('erase-v2', 'IN_PROGRESS')).toBe(true);
  expect(isPassingState('review-b0', 'processing')).toBe(true);
  expect(isPassingState('review-b0', 'completed')).toBe(false);
  expect(isPassingState('assets', 'Pending')).toBe(false);
});

test('once the stage called a task its own, its other passing states are dropped unasked; its end is still asked', () => {
  const { m } = memory();
  expect(m.recall(url, 't-1', 'queued')).toBeUndefined();
  m.learn(url, 't-1', 'passing');
  expect(m.recall(url, 't-1', 'running')).toBe('passing');
  expect(m.recall(url, 't-1', 'succeeded')).toBeUndefined();
  expect(m.recall(url, 't-2', 'running')).toBeUndefined(); // another id may be an offer
  expect(m.recall({ ...url, attempt: 2 }, 't-1', 'running')).toBeUndefined();
});

test('settled steps, stale attempts and mismatched ids are remembered; new, duplicate and limit teach nothing', () => {
  const { m } = memory();
  m.learn(url, 't-9', 'mismatch');
  expect(m.recall(url, 't-9', 'succeeded')).toBe('mismatch');
  m.learn({ ...url, attempt: 2 }, 't-1', 'stale');
  expect(m.recall({ ...url, attempt: 2 }, undefined, undefined)).toBe('stale');
  for (const v of ['new', 'duplicate', 'limit', 'unknown'] as const)
    m.learn({ ...url, step: 'erase' }, 'e-1', v as never);
  expect(m.recall({ ...url, step: 'erase' }, 'e-1', 'QUEUED')).toBeUndefined();
  m.learn(url, 't-1', 'settled');
  expect(m.recall({ ...url, attempt: 3 }, 't-3', 'queued')).toBe('settled');
});

test('URLs without a run (the earlier form) are never remembered: the workflow id alone may name another pipeline later', () => {
  const { m } = memory();
  const v1 = { workflowId: 'p1', step: 'generation', attempt: 1 };
  m.learn(v1, 't-1', 'settled');
  expect(m.recall(v1, 't-1', 'running')).toBeUndefined();
  expect(m.size).toBe(0);
});

test('memory is bounded: facts expire, and the least recently used go first', () => {
  const { clock, m } = memory(2);
  m.learn({ ...url, step: 'a' }, undefined, 'settled');
  m.learn({ ...url, step: 'b' }, undefined, 'settled');
  m.learn({ ...url, step: 'c' }, undefined, 'settled');
  expect(m.size).toBe(2);
  expect(m.recall({ ...url, step: 'a' }, undefined, undefined)).toBeUndefined();
  expect(m.recall({ ...url, step: 'c' }, undefined, undefined)).toBe('settled');
  clock.now += 60_001;
  expect(m.recall({ ...url, step: 'c' }, undefined, undefined)).toBeUndefined();
});

test('lanes run at most inFlight jobs at once, queue up to `queued`, and refuse past that', async () => {
  const lanes = new Lanes(2, 1);
  const gates: Array<() => void> = [];
  let running = 0;
  let most = 0;
  const job = () =>
    new Promise<number>((resolve) => {
      running++;
      most = Math.max(most, running);
      gates.push(() => {
        running--;
        resolve(running);
      });
    });
  const taken = [lanes.take(job), lanes.take(job), lanes.take(job)];
  expect(taken.every((p) => p !== undefined)).toBe(true);
  expect(lanes.take(job)).toBeUndefined();
  await Promise.resolve();
  expect(running).toBe(2);
  gates.shift()!();
  await taken[0];
  await new Promise((r) => setImmediate(r));
  expect(running).toBe(2); // the queued one took the freed lane
  gates.splice(0).forEach((open) => open());
  await new Promise((r) => setImmediate(r));
  gates.splice(0).forEach((open) => open());
  await Promise.all(taken as Array<Promise<number>>);
  expect(most).toBe(2);
});
