import { parseDefinition } from '../../src/definition/definition';
import { DefinitionError } from '../../src/definition/definition';
import {
  formatMinorUnits,
  parseAmount,
  parseTenantsConfig,
  toMinorUnits,
  TenantsConfigError,
} from '../../src/tenants/config';
import { fitsMoney, MAX_AMOUNT_MINOR } from '../../src/contract/tenancy';
import { cli } from '../support/cli';
import { resolveTenantPolicy } from '../../src/tenants/policy';

const def = (options: Record<string, unknown> = {}) =>
  parseDefinition({ generation: { model: 'm', content: [{ type: 'text', text: 'hi' }] }, options });

const config = parseTenantsConfig({
  prices: { generation: '0.35' },
  defaults: { maxPriority: 'normal', concurrency: 20 },
  tenants: { acme: { maxPriority: 'interactive', weight: 3, budget: { period: 'day', amount: '2.5' } }, small: {} },
});

describe('tenant configuration', () => {
  test('amounts are exact integer millionths', () => {
    expect(toMinorUnits('0.000015')).toBe(15);
    expect(toMinorUnits('12')).toBe(12_000_000);
    expect(formatMinorUnits(15)).toBe('0.000015');
    expect(formatMinorUnits(2_500_000)).toBe('2.5');
    expect(formatMinorUnits(-350_000)).toBe('-0.35');
  });

  test('every problem names its field and no value', () => {
    let err: unknown;
    try {
      parseTenantsConfig({
        prices: { erase: 0.1 },
        tenants: { 'bad id': {}, ok: { concurrency: 0 } },
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TenantsConfigError);
    const message = (err as Error).message;
    expect(message).toMatch(/prices\.erase: must be a decimal string/);
    expect(message).toMatch(/tenants\.ok\.concurrency: must be at least 1/);
    expect(message).toMatch(/tenants\.bad id/);
    // The cross-field rule runs once every field is well formed.
    expect(() => parseTenantsConfig({ defaultTenant: 'nobody', tenants: { ok: {} } })).toThrow(
      /defaultTenant: must be one of the tenants listed/,
    );
  });

  test('an amount is at most 1,000,000,000 units: past it, the field is named and the value never quoted', () => {
    const withBudget = (amount: string) =>
      parseTenantsConfig({ tenants: { acme: { budget: { period: 'month', amount } } } });
    expect(withBudget('1000000000').tenants.acme.budget?.amount).toBe(MAX_AMOUNT_MINOR);
    let err: unknown;
    try {
      parseTenantsConfig({
        prices: { generation: '999999999999' },
        tenants: { acme: { budget: { period: 'month', amount: '1000000000.000001' } } },
      });
    } catch (e) {
      err = e;
    }
    const message = (err as Error).message;
    expect(message).toContain('prices.generation: must be at most 1000000000');
    expect(message).toContain('tenants.acme.budget.amount: must be at most 1000000000');
    expect(message).not.toMatch(/999999999999|1000000000\.000001/);
    expect(parseAmount('1000000000', '--amount')).toBe(1e15);
    expect(() => parseAmount('1000000001', '--amount')).toThrow(/^--amount: must be at most 1000000000$/);
  });

  test('`reelflow budget set --amount` past the bound is a usage error naming the option, not the value', async () => {
    const run = await cli(['budget', 'set', '--tenant', 'acme', '--amount', '1000000000.5'], { env: {} });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--amount: must be at most 1000000000');
    expect(run.stderr).not.toContain('1000000000.5');
  });

  test('the bound keeps sums of amounts exact; fitsMoney says which numbers are money', () => {
    expect(MAX_AMOUNT_MINOR).toBe(1e15);
    // A ledger adds spent + reserved + price: three bounded amounts stay exact.
    expect(Number.isSafeInteger(3 * MAX_AMOUNT_MINOR + 1)).toBe(true);
    expect(fitsMoney(0)).toBe(true);
    expect(fitsMoney(MAX_AMOUNT_MINOR)).toBe(true);
    expect(fitsMoney(MAX_AMOUNT_MINOR + 1)).toBe(false);
    expect(fitsMoney(-1)).toBe(false);
    expect(fitsMoney(1.5)).toBe(false);
    expect(fitsMoney(Number.NaN)).toBe(false);
    expect(fitsMoney(Number.POSITIVE_INFINITY)).toBe(false);
  });

  test('a utcOffset is parsed to minutes', () => {
    expect(parseTenantsConfig({ utcOffset: '+08:00', tenants: {} }).utcOffset).toBe(480);
    expect(parseTenantsConfig({ utcOffset: '-05:30', tenants: {} }).utcOffset).toBe(-330);
    expect(() => parseTenantsConfig({ utcOffset: 'Asia/Shanghai', tenants: {} })).toThrow(/utcOffset/);
  });
});

describe("one pipeline's tenant policy", () => {
  test('without a configuration, no tenant: nothing applies; a tenant is refused naming the field', () => {
    expect(resolveTenantPolicy(def(), undefined)).toBeUndefined();
    expect(() => resolveTenantPolicy(def({ tenant: 'acme' }), undefined)).toThrow(DefinitionError);
    expect(() => resolveTenantPolicy(def({ tenant: 'acme' }), undefined)).toThrow(/options\.tenant/);
  });

  test('a known tenant gets its limits over the defaults, and every price', () => {
    const p = resolveTenantPolicy(def({ tenant: 'acme', priority: 'interactive', overBudget: 'fail' }), config)!;
    expect(p).toMatchObject({ tenant: 'acme', priority: 'interactive', priorityKey: 1, weight: 3, concurrency: 20 });
    expect(p.budget).toEqual({ period: 'day', amount: 2_500_000 });
    expect(p.prices).toEqual({ review: 0, assetGroup: 0, asset: 0, generation: 350_000, erase: 15 });
    expect(p.overBudget).toBe('fail');
  });

  test("a priority above the tenant's highest is lowered to it; the default is normal", () => {
    expect(resolveTenantPolicy(def({ tenant: 'small', priority: 'interactive' }), config)).toMatchObject({
      priority: 'normal',
      priorityKey: 3,
    });
    expect(resolveTenantPolicy(def({ tenant: 'small', priority: 'batch' }), config)?.priorityKey).toBe(5);
    expect(resolveTenantPolicy(def({ tenant: 'small' }), config)?.priority).toBe('normal');
  });

  test('an unknown or missing tenant is refused, unless a default tenant is configured', () => {
    expect(() => resolveTenantPolicy(def({ tenant: 'mallory' }), config)).toThrow(/"mallory" is not a tenant/);
    expect(() => resolveTenantPolicy(def(), config)).toThrow(/options\.tenant: is required/);
    const withDefault = parseTenantsConfig({ defaultTenant: 'shared', tenants: { shared: {} } });
    expect(resolveTenantPolicy(def({ tenant: 'mallory' }), withDefault)?.tenant).toBe('shared');
    expect(resolveTenantPolicy(def(), withDefault)?.tenant).toBe('shared');
  });

  test('the definition refuses a malformed tenant or priority, naming the field', () => {
    expect(() => def({ tenant: 'a'.repeat(65) })).toThrow(/options\.tenant/);
    expect(() => def({ tenant: 'has space' })).toThrow(/options\.tenant/);
    expect(() => def({ priority: 'urgent' })).toThrow(/options\.priority/);
  });
});
