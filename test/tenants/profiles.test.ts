/**
 * Tenants bound to credential profiles (docs/tenants.md): a tenant's own list replaces the
 * defaults'; a profile not allowed is refused by the definition check naming options.profile;
 * a file listing a profile the worker does not serve is refused at start naming the field.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefinitionError, parseDefinition } from '../../src/definition/definition';
import { parseTenantsConfig, unboundTenants } from '../../src/tenants/config';
import { resolveTenantPolicy } from '../../src/tenants/policy';
import { loadWorkerConfig } from '../../src/workers/config';

const def = (options: Record<string, unknown>) =>
  parseDefinition({ generation: { model: 'm', content: [{ type: 'text', text: 'hi' }] }, options });

const FILE = {
  defaults: { profiles: ['default'] },
  tenants: { acme: { profiles: ['default', 'acme'] }, small: {}, none: { profiles: [] } },
};
const config = parseTenantsConfig(FILE);

/** The DefinitionError's issues, or a failure when the policy was granted. */
function refusal(options: Record<string, unknown>): DefinitionError['issues'] {
  try {
    resolveTenantPolicy(def(options), config);
  } catch (err) {
    if (err instanceof DefinitionError) return err.issues;
    throw err;
  }
  throw new Error('the policy was granted');
}

describe("a tenant's credential profiles", () => {
  test("a tenant's own list replaces the defaults'; an empty list allows none", () => {
    expect(resolveTenantPolicy(def({ tenant: 'acme', profile: 'acme' }), config)?.tenant).toBe('acme');
    expect(resolveTenantPolicy(def({ tenant: 'acme' }), config)?.tenant).toBe('acme');
    expect(resolveTenantPolicy(def({ tenant: 'small' }), config)?.tenant).toBe('small');
    expect(refusal({ tenant: 'small', profile: 'acme' })).toEqual([
      {
        path: 'options.profile',
        message:
          'credential profile "acme" is not one that tenant "small" may spend on (its profiles in REELFLOW_TENANTS_FILE)',
      },
    ]);
    expect(refusal({ tenant: 'none' })[0].path).toBe('options.profile');
  });

  test('the profile is checked against the tenant the pipeline runs as (the default tenant too)', () => {
    const withDefault = parseTenantsConfig({ defaultTenant: 'shared', tenants: { shared: { profiles: ['default'] } } });
    expect(resolveTenantPolicy(def({ tenant: 'mallory' }), withDefault)?.tenant).toBe('shared');
    expect(() => resolveTenantPolicy(def({ tenant: 'mallory', profile: 'acme' }), withDefault)).toThrow(
      /options\.profile: credential profile "acme" is not one that tenant "shared" may spend on/,
    );
  });

  test('absent everywhere: every profile is allowed, and the unbound tenants are listed', () => {
    const open = parseTenantsConfig({ tenants: { acme: {}, small: {} } });
    expect(resolveTenantPolicy(def({ tenant: 'acme', profile: 'anything' }), open)?.tenant).toBe('acme');
    expect(unboundTenants(open)).toEqual(['acme', 'small']);
    expect(unboundTenants(config)).toEqual([]);
    expect(unboundTenants(parseTenantsConfig({ tenants: { a: { profiles: ['x'] }, b: {} } }))).toEqual(['b']);
  });

  test('a malformed profile name in the file is refused naming the field', () => {
    expect(() => parseTenantsConfig({ tenants: { acme: { profiles: ['has space'] } } })).toThrow(
      /tenants\.acme\.profiles\.0: may hold only letters, digits, - and _/,
    );
    expect(() => parseTenantsConfig({ defaults: { profiles: 'default' }, tenants: {} })).toThrow(/defaults\.profiles/);
  });
});

describe("the worker's start", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-profiles-'));
  const fileOf = (json: unknown) => {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(json));
    return file;
  };

  test('a file listing only served profiles loads', () => {
    const config = loadWorkerConfig({ REELFLOW_PROFILES: 'default,acme', REELFLOW_TENANTS_FILE: fileOf(FILE) });
    expect(config.tenants?.tenants.acme.profiles).toEqual(['default', 'acme']);
  });

  test('a profile the worker does not serve is refused naming the field, not the profile', () => {
    const file = fileOf({
      defaults: { profiles: ['default', 'secretive-name'] },
      tenants: { acme: { profiles: ['acme'] } },
    });
    let message = '';
    try {
      loadWorkerConfig({ REELFLOW_TENANTS_FILE: file });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(
      'REELFLOW_TENANTS_FILE defaults.profiles.1: must be a profile this worker serves (REELFLOW_PROFILES)',
    );
    expect(message).toContain('REELFLOW_TENANTS_FILE tenants.acme.profiles.0: must be a profile this worker serves');
    expect(message).not.toContain('defaults.profiles.0');
    expect(message).not.toContain('secretive-name');
  });
});
