/** The pure parts of spend budgets: periods on the tenants' clock, and the ledger's book. */
import {
  MAX_SETTLED_KEYS,
  ledgerId,
  parseLedgerId,
  periodEndMs,
  periodOf,
  periodStartMs,
  previousPeriod,
  type LedgerInput,
  type ReserveRequest,
} from '../../src/contract/ledger';
import { emptyCarry, reserve, settle, viewOf } from '../../src/workflows/lib/ledger-book';

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
  });
});

describe('the ledger book', () => {
  const input: LedgerInput = {
    tenant: 'acme',
    period: '2026-11',
    currency: 'CNY',
    utcOffsetMinutes: 0,
    budget: 100,
    configured: true,
  };
  const req = (key: string, amount = 40, pipelineId = 'p1'): ReserveRequest => ({
    key,
    amount,
    kind: 'generation',
    stage: 'generation',
    pipelineId,
    wait: true,
  });
  const now = '2026-11-27T00:00:00Z';

  test('a reserve repeated with its key is granted again and counted once', () => {
    const c = emptyCarry(input);
    expect(reserve(c, req('p1/generation/1'), now)).toEqual({ granted: true, committed: 40, budget: 100 });
    expect(reserve(c, req('p1/generation/1'), now)).toEqual({ granted: true, committed: 40, budget: 100 });
    settle(c, { key: 'p1/generation/1', outcome: 'confirm' });
    // After its confirm, too: an activity retried late still counts once.
    expect(reserve(c, req('p1/generation/1'), now).committed).toBe(40);
    expect(viewOf(input, c)).toMatchObject({ spent: 40, reserved: 0, remaining: 60 });
  });

  test('exactly the budget is granted; one more is refused and its pipeline waits', () => {
    const c = emptyCarry(input);
    reserve(c, req('a', 60), now);
    expect(reserve(c, req('b', 40), now).granted).toBe(true);
    expect(reserve(c, req('c', 1, 'p2'), now)).toEqual({ granted: false, committed: 100, budget: 100 });
    expect(c.waiters).toEqual(['p2']);
    expect(c.open.c).toBeUndefined();
  });

  test('release gives the amount back; unresolved stays counted, listed apart; repeats change nothing', () => {
    const c = emptyCarry(input);
    reserve(c, req('a', 30), now);
    reserve(c, req('b', 50), now);
    expect(settle(c, { key: 'a', outcome: 'release' })).toEqual({});
    expect(settle(c, { key: 'a', outcome: 'release' })).toBeUndefined();
    expect(settle(c, { key: 'a', outcome: 'confirm' })).toBeUndefined();
    settle(c, { key: 'b', outcome: 'unresolved' });
    const v = viewOf(input, c);
    expect(v).toMatchObject({ spent: 0, reserved: 0, released: 1, remaining: 50 });
    expect(v.unresolved).toEqual([{ key: 'b', amount: 50, kind: 'generation', stage: 'generation', pipelineId: 'p1' }]);
  });

  test('a release that arrives before its ask (a cancelled pipeline): the late ask counts nothing', () => {
    const c = emptyCarry(input);
    expect(settle(c, { key: 'late', outcome: 'release' })).toBeUndefined();
    expect(reserve(c, req('late', 40), now).granted).toBe(true);
    expect(viewOf(input, c)).toMatchObject({ spent: 0, reserved: 0, remaining: 100 });
    // An unresolved or confirm for an unknown key is no such promise: the key stays free.
    settle(c, { key: 'other', outcome: 'confirm' });
    expect(reserve(c, req('other', 40), now).committed).toBe(40);
  });

  test('a probe answers whether an amount fits, and reserves nothing', () => {
    const c = emptyCarry(input);
    reserve(c, req('a', 60), now);
    expect(reserve(c, { ...req('s/check', 40), probe: true }, now)).toEqual({
      granted: true,
      committed: 60,
      budget: 100,
    });
    expect(reserve(c, { ...req('s/check', 41), probe: true }, now)).toEqual({
      granted: false,
      committed: 60,
      budget: 100,
    });
    expect(c.waiters).toEqual([]);
    expect(viewOf(input, c)).toMatchObject({ reserved: 60, remaining: 40 });
  });

  test('a reserve that wants no answer (no budget in its policy) is always counted', () => {
    const c = emptyCarry(input, 10);
    expect(reserve(c, { ...req('n', 40), answer: false }, now).granted).toBe(true);
    expect(viewOf(input, c)).toMatchObject({ reserved: 40, remaining: -30 });
  });

  test('an override is the budget in force, the configured one is shown beside it', () => {
    const c = emptyCarry(input, 250);
    expect(viewOf(input, c)).toMatchObject({ budget: 250, override: 250, configuredBudget: 100, remaining: 250 });
  });

  test('settled keys are bounded, oldest dropped first; totals stay exact', () => {
    const c = emptyCarry({ ...input, budget: undefined });
    const n = MAX_SETTLED_KEYS + 10;
    for (let i = 0; i < n; i++) {
      reserve(c, req(`k${i}`, 15), now);
      settle(c, { key: `k${i}`, outcome: 'confirm' });
    }
    expect(Object.keys(c.settled)).toHaveLength(MAX_SETTLED_KEYS);
    expect(c.settled.k0).toBeUndefined();
    expect(c.settled[`k${n - 1}`]).toBe('c');
    expect(c.confirmed.generation.generation).toEqual({ amount: 15 * n, count: n });
  });
});
