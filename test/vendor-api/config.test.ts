import { inspect } from 'node:util';
import { loadVendorConfig, profileVariable, resolveProfile } from '../../src/vendor-api/config';
import { VendorConfigError } from '../../src/vendor-api/errors';

const BASE = { VENDOR_BASE_URL: 'https://api.vendor.test/', VENDOR_IDENTITY_URL: 'https://id.vendor.test' };

function configError(fn: () => unknown): VendorConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(VendorConfigError);
    return err as VendorConfigError;
  }
  throw new Error('expected VendorConfigError');
}

describe('loadVendorConfig', () => {
  it('reads addresses and defaults the timeouts', () => {
    expect(loadVendorConfig(BASE)).toEqual({
      baseUrl: 'https://api.vendor.test',
      identityUrl: 'https://id.vendor.test',
      timeouts: { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 },
      pathWord: 'svc',
    });
  });

  it('VENDOR_TIMEOUT_MS sets headers and body; specific variables win', () => {
    const c = loadVendorConfig({
      ...BASE,
      VENDOR_TIMEOUT_MS: '5000',
      VENDOR_BODY_TIMEOUT_MS: '7000',
      VENDOR_CONNECT_TIMEOUT_MS: '900',
    });
    expect(c.timeouts).toEqual({ connectMs: 900, headersMs: 5000, bodyMs: 7000 });
  });

  it.each([
    [{ VENDOR_IDENTITY_URL: BASE.VENDOR_IDENTITY_URL }, 'VENDOR_BASE_URL', /is required/],
    [{ ...BASE, VENDOR_IDENTITY_URL: '' }, 'VENDOR_IDENTITY_URL', /is required/],
    [{ ...BASE, VENDOR_BASE_URL: 'api.vendor.test' }, 'VENDOR_BASE_URL', /http\(s\) URL/],
    [{ ...BASE, VENDOR_TIMEOUT_MS: 'soon' }, 'VENDOR_TIMEOUT_MS', /./],
    [{ ...BASE, VENDOR_HEADERS_TIMEOUT_MS: '-5' }, 'VENDOR_HEADERS_TIMEOUT_MS', /positive/],
    [{ ...BASE, VENDOR_CONNECT_TIMEOUT_MS: '1.5' }, 'VENDOR_CONNECT_TIMEOUT_MS', /integer/],
    [{ ...BASE, VENDOR_PATH_WORD: 'a/b' }, 'VENDOR_PATH_WORD', /letters, digits, - and _/],
    [{ ...BASE, VENDOR_PATH_WORD: 'two words' }, 'VENDOR_PATH_WORD', /letters, digits, - and _/],
  ])('%j names %s', (env, variable, why) => {
    const err = configError(() => loadVendorConfig(env));
    expect(err.variable).toBe(variable);
    expect(err.message).toContain(variable);
    expect(err.message).toMatch(why);
  });

  it("VENDOR_PATH_WORD replaces the spec's `svc` path word", () => {
    expect(loadVendorConfig({ ...BASE, VENDOR_PATH_WORD: 'acme_v-2' }).pathWord).toBe('acme_v-2');
    expect(loadVendorConfig({ ...BASE, VENDOR_PATH_WORD: '' }).pathWord).toBe('svc');
  });

  it('does not echo a bad value', () => {
    const err = configError(() => loadVendorConfig({ ...BASE, VENDOR_BASE_URL: 'secret-looking-value' }));
    expect(err.message).not.toContain('secret-looking-value');
  });
});

describe('credential profiles', () => {
  const env = {
    REELFLOW_PROFILE_DEFAULT_API_KEY: 'sk-default-0001',
    REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: 'tok-default-0001',
    REELFLOW_PROFILE_TEAM_B_API_KEY: 'sk-team-b-0001',
  };

  it('maps a profile name to its variables (uppercased, - → _)', () => {
    expect(profileVariable('team-b', 'apiKey')).toBe('REELFLOW_PROFILE_TEAM_B_API_KEY');
    expect(profileVariable('default', 'accessToken')).toBe('REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN');
    expect(configError(() => profileVariable('../x', 'apiKey')).variable).toBe('profile');
  });

  it('resolves both secrets, redacted when serialized or inspected', () => {
    const c = resolveProfile('default', env);
    expect(c.apiKey).toBe('sk-default-0001');
    expect(c.accessToken).toBe('tok-default-0001');
    const shown = JSON.stringify(c) + inspect(c) + String(c);
    expect(shown).not.toContain('sk-default');
    expect(shown).not.toContain('tok-default');
    expect(JSON.parse(JSON.stringify(c))).toEqual({
      profile: 'default',
      apiKey: '[redacted]',
      accessToken: '[redacted]',
    });
  });

  it('names the missing variable, never a value', () => {
    const err = configError(() => resolveProfile('team-b', env));
    expect(err.variable).toBe('REELFLOW_PROFILE_TEAM_B_ACCESS_TOKEN');
    expect(err.message).toBe('credential profile "team-b": REELFLOW_PROFILE_TEAM_B_ACCESS_TOKEN is not set');
    expect(err.message).not.toContain('sk-team-b');
  });

  it('can require only what a pipeline needs', () => {
    const c = resolveProfile('team-b', env, ['apiKey']);
    expect(c.apiKey).toBe('sk-team-b-0001');
    expect(c.accessToken).toBeUndefined();
    expect(configError(() => resolveProfile('nobody', env, ['apiKey'])).variable).toBe(
      'REELFLOW_PROFILE_NOBODY_API_KEY',
    );
  });
});
