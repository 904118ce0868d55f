import { parseDefinition } from '../../src/definition/definition';
import { DefinitionError } from '../../src/definition/definition';
import { formatMinorUnits, parseTenantsConfig, toMinorUnits, TenantsConfigError } from '../../src/tenants/config';
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
