/** The pure parts of spend budgets: periods on the tenants' clock, and the ledger's book. */
import {
  MAX_SETTLED_KEYS,
  chainKey,
  ledgerId,
  ledgerStartOptions,
  parseLedgerId,
  periodEndMs,
  periodKindOf,
  periodOf,
  periodStartMs,
  previousPeriod,
  type LedgerTerms,
  type ReserveRequest,
} from '../../src/contract/ledger';
import { checkReserve, emptyState, reserve, settle, viewOf } from '../../src/contract/ledger-book';
import { MAX_AMOUNT_MINOR } from '../../src/contract/tenancy';

const at = (iso: string) => Date.parse(iso);

describe('periods', () => {
  test('a day and a month on the UTC clock and at +08:00', () => {
    expect(periodOf(at('2026-11-27T23:59:59Z'), 'day', 0)).toBe('2026-11-27');
    expect(periodOf(at('2026-11-27T16:00:00Z'), 'day', 480)).toBe('2026-11-28');
    expect(periodOf(at('2026-11-30T15:59:59Z'), 'month', 480)).toBe('2026-11');
    expect(periodOf(at('2026-11-30T16:00:00Z'), 'month', 480)).toBe('2026-12');
    expect(periodOf(at('2026-01-01T02:00:00Z'), 'day', -180)).toBe('2025-12-31');
  });

  test('start and end of a period are where the clock turns', () => {
    expect(periodStartMs('2026-11-28', 480)).toBe(at('2026-11-27T16:00:00Z'));
    expect(periodEndMs('2026-11-28', 480)).toBe(at('2026-11-28T16:00:00Z'));
    expect(periodEndMs('2026-12', 0)).toBe(at('2027-01-01T00:00:00Z'));
    expect(periodEndMs('2026-02-28', 0)).toBe(at('2026-03-01T00:00:00Z'));
  });

  test('the previous period crosses months and years', () => {
    expect(previousPeriod('2026-03-01', 0)).toBe('2026-02-28');
    expect(previousPeriod('2026-01', 480)).toBe('2025-12');
    expect(previousPeriod('2027-01-01', -300)).toBe('2026-12-31');
  });

  test('ledger ids name tenant and period, and only ledger ids parse', () => {
    expect(parseLedgerId(ledgerId('acme', '2026-11'))).toEqual({ tenant: 'acme', period: '2026-11' });
    expect(parseLedgerId('reelflow-other')).toBeUndefined();
    expect(parseLedgerId('reelflow-ledger/x')).toBeUndefined();
    expect([periodKindOf('2026-11'), periodKindOf('2026-11-27'), periodKindOf('x')]).toEqual([
      'month',
      'day',
      undefined,
    ]);
  });
});

test("a ledger starts with no input, at priority key 1: ahead of its pipelines' backlog on their queue", () => {
  const o = ledgerStartOptions('acme', '2026-11-28', 'reelflow');
  expect(o).toMatchObject({ workflowId: 'reelflow-ledger/acme/2026-11-28', taskQueue: 'reelflow', args: [] });
  expect(o.priority).toEqual({ priorityKey: 1 });
});

describe('the ledger book', () => {
  const terms: LedgerTerms = {
    known: true,
    currency: 'CNY',
    utcOffsetMinutes: 0,
    budget: 100,
    prices: { review: 1, assetGroup: 2, asset: 3, generation: 40, erase: 0 },
  };
  const chain = (p = 'p1') => ({ pipelineId: p, firstRunId: `run-${p}` });
  const req = (
    key: string,
    count = 1,
    p = 'p1',
    kind: ReserveRequest['creates'][0]['kind'] = 'generation',
  ): ReserveRequest => ({
    chain: chain(p),
    key,
    creates: [{ kind, count }],
    wait: true,
    answer: true,
    ask: 1,
  });
  const now = '2026-11-27T00:00:00Z';
  const max = MAX_AMOUNT_MINOR;
  const record = (used: Record<string, number>, unresolved: Record<string, number> = {}) => ({ used, unresolved });

  test('the ledger prices a reserve itself; a key repeated is granted again and counted once', () => {
    const s = emptyState();
    expect(reserve(s, terms, req('plan'), now, max)).toMatchObject({ granted: true, committed: 40, amount: 40 });
    expect(reserve(s, terms, req('plan'), now, max)).toMatchObject({ granted: true, committed: 40 });
    expect(viewOf('acme', '2026-11', s, terms)).toMatchObject({ spent: 0, reserved: 40, remaining: 60 });
  });

  test('a reused workflow id is another chain: it reserves and pays like any other', () => {
    const s = emptyState();
    reserve(s, terms, req('plan'), now, max);
    const again = { ...req('plan'), chain: { pipelineId: 'p1', firstRunId: 'run-second' } };
    expect(reserve(s, terms, again, now, max)).toMatchObject({ granted: true, committed: 80 });
    expect(Object.keys(s.chains)).toEqual(['p1/run-p1', 'p1/run-second']);
  });

  test('exactly the budget is granted; one more is refused and its pipeline waits', () => {
    const s = emptyState();
    reserve(s, terms, { ...req('plan'), creates: [{ kind: 'asset', count: 20 }] }, now, max);
    expect(reserve(s, terms, req('plan', 1, 'p2'), now, max).granted).toBe(true);
    expect(reserve(s, terms, req('plan', 1, 'p3', 'review'), now, max)).toMatchObject({
      granted: false,
      committed: 100,
    });
    expect(s.waiters).toEqual(['p3']);
  });

  test('a settle confirms what the pipeline used, keeps its unresolved apart, releases the rest; a repeat changes nothing', () => {
    const s = emptyState();
    reserve(
      s,
      terms,
      {
        ...req('plan'),
        creates: [
          { kind: 'asset', count: 3 },
          { kind: 'generation', count: 1 },
        ],
      },
      now,
      max,
    );
    expect(settle(s, terms, chain(), record({ asset: 1 }, { generation: 1 }))).toEqual({ asset: 3 });
    expect(settle(s, terms, chain(), record({ asset: 3 }))).toBeUndefined();
    const v = viewOf('acme', '2026-11', s, terms);
    expect(v).toMatchObject({ spent: 3, reserved: 0, released: 2, remaining: 57 });
    expect(v.unresolved).toEqual([
      { key: chainKey(chain()), pipelineId: 'p1', kind: 'generation', stage: 'generation', count: 1, amount: 40 },
    ]);
    expect(reserve(s, terms, req('extra-1'), now, max)).toMatchObject({
      granted: false,
      refused: expect.stringContaining('settled'),
    });
  });

  test("a settle without the pipeline's record (terminated): everything it held is unresolved, never dropped", () => {
    const s = emptyState();
    reserve(s, terms, req('plan', 2, 'p1', 'asset'), now, max);
    settle(s, terms, chain(), undefined);
    expect(viewOf('acme', '2026-11', s, terms)).toMatchObject({ spent: 0, reserved: 0, remaining: 94 });
  });

  test('a pipeline that spent with no reservation here (an answer forged to it) is counted all the same', () => {
    const s = emptyState();
    expect(settle(s, terms, chain('p9'), record({ generation: 1 }, { asset: 1 }))).toEqual({ generation: 40 });
    expect(viewOf('acme', '2026-11', s, terms)).toMatchObject({ spent: 40, remaining: 57 });
    expect(settle(s, terms, chain('p8'), record({}))).toBeUndefined();
  });

  test('the price is pinned at reservation: a later price change does not strand or reprice it', () => {
    const s = emptyState();
    reserve(s, terms, req('plan'), now, max);
    const dearer = { ...terms, prices: { ...terms.prices, generation: 90 } };
    expect(settle(s, dearer, chain(), record({ generation: 1 }))).toEqual({ generation: 40 });
  });

  test('a reserve that wants no answer (no budget) is always counted; the period total stays bounded', () => {
    const s = emptyState(10);
    expect(reserve(s, terms, { ...req('plan'), answer: false }, now, max).granted).toBe(true);
    expect(viewOf('acme', '2026-11', s, terms)).toMatchObject({ reserved: 40, remaining: -30 });
    const huge = { ...terms, prices: { ...terms.prices, asset: max } };
    expect(reserve(s, huge, { ...req('plan', 2, 'p2', 'asset'), answer: false }, now, max)).toMatchObject({
      granted: false,
      refused: expect.stringContaining('bound'),
    });
  });

  test('malformed reserves are refused naming the field; zero-priced kinds are still counted', () => {
    const bad = (patch: object) => checkReserve({ ...req('plan'), ...patch });
    expect(bad({ creates: [{ kind: 'generation', count: -1 }] })).toEqual({
      refused: expect.stringMatching(/^creates\[0\]\.count/),
    });
    expect(bad({ creates: [{ kind: 'generation', count: 1.5 }] })).toEqual({
      refused: expect.stringMatching(/^creates\[0\]\.count/),
    });
    expect(bad({ creates: [{ kind: 'gold', count: 1 }] })).toEqual({
      refused: expect.stringMatching(/^creates\[0\]\.kind/),
    });
    expect(bad({ creates: [] })).toEqual({ refused: expect.stringMatching(/^creates/) });
    expect(bad({ amount: -5, creates: 'x' })).toEqual({ refused: expect.stringMatching(/^creates/) });
    expect(bad({ chain: { pipelineId: 'p1' } })).toEqual({ refused: expect.stringMatching(/^chain/) });
    expect(checkReserve(null)).toEqual({ refused: expect.stringMatching(/^chain/) });
    const s = emptyState();
    reserve(s, terms, req('plan', 2, 'p1', 'erase'), now, max);
    settle(s, terms, chain(), record({ erase: 2 }));
    expect(s.confirmed.erase.erase).toEqual({ amount: 0, count: 2 });
  });

  test('an override is the budget in force, the configured one is shown beside it', () => {
    expect(viewOf('acme', '2026-11', emptyState(250), terms)).toMatchObject({
      budget: 250,
      override: 250,
      configuredBudget: 100,
      remaining: 250,
    });
  });

  test('settled chains are bounded, oldest dropped first; totals stay exact', () => {
    const s = emptyState();
    const free = { ...terms, budget: undefined, prices: { ...terms.prices, generation: 15 } };
    const n = MAX_SETTLED_KEYS + 10;
    for (let i = 0; i < n; i++) {
      reserve(s, free, req('plan', 1, `p${i}`), now, max);
      settle(s, free, chain(`p${i}`), record({ generation: 1 }));
    }
    expect(Object.keys(s.settled)).toHaveLength(MAX_SETTLED_KEYS);
    expect(s.settled[chainKey(chain('p0'))]).toBeUndefined();
    expect(s.confirmed.generation.generation).toEqual({ amount: 15 * n, count: n });
  });
});
