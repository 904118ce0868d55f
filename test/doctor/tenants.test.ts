/**
 * The doctor's tenant profiles check: off without tenants, ✓ when every tenant is bound, !
 * naming the others; the worker's start logs the warning.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tenantProfilesCheck, tenantsFileCheck } from '../../src/workers/doctor';
import { runStartupChecks } from '../../src/workers/startup-checks';
import { loadWorkerConfig, type WorkerConfig } from '../../src/workers/config';
import { parseTenantsConfig } from '../../src/tenants/config';

const base: WorkerConfig = loadWorkerConfig({});
const withTenants = (json: unknown): WorkerConfig => ({ ...base, tenants: parseTenantsConfig(json) });

test('without a tenants file the check passes: tenants are off', () => {
  expect(tenantProfilesCheck(base)).toEqual({
    id: 'tenants.profiles',
    title: 'tenant credential profiles',
    ok: true,
    detail: 'off (REELFLOW_TENANTS_FILE unset)',
  });
});

test("every tenant bound (its own list, or the defaults'): ✓ without a warning", () => {
  const c = tenantProfilesCheck(
    withTenants({ defaults: { profiles: [] }, tenants: { a: {}, b: { profiles: ['x'] } } }),
  );
  expect(c).toMatchObject({ ok: true, detail: 'every tenant lists the profiles it may spend on' });
  expect(c.warning).toBeUndefined();
});

test('tenants with no list anywhere: a warning naming them, with the fix; still ok', () => {
  const one = tenantProfilesCheck(withTenants({ tenants: { acme: {}, bound: { profiles: ['default'] } } }));
  expect(one).toMatchObject({ ok: true, warning: true, fix: expect.stringContaining('REELFLOW_TENANTS_FILE') });
  expect(one.detail).toBe(
    'tenant acme may spend on every credential profile (no "profiles" of their own, none in "defaults")',
  );
  const many = tenantProfilesCheck(
    withTenants({ tenants: Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((t) => [t, {}])) }),
  );
  expect(many.detail).toMatch(/^7 tenants \(a, b, c, d, e and 2 more\) may spend on every credential profile/);
});

test("the worker's start logs the warning, and counts it in its summary line", async () => {
  const archive = mkdtempSync(path.join(os.tmpdir(), 'reelflow-doctor-tenants-'));
  const config = {
    ...withTenants({ tenants: { acme: {} } }),
    archiveRoot: archive,
    archiveMaxBytes: 1,
    strictStart: false,
  };
  const lines: [string, string | undefined][] = [];
  // No VENDOR_* variables: the vendor configuration is one ✗, with no network call.
  await runStartupChecks(config, {}, (line, level) => lines.push([line, level]));
  expect(lines).toContainEqual([
    expect.stringMatching(/^start-up check warning: tenant credential profiles: tenant acme may spend on every/),
    'warn',
  ]);
  expect(lines.at(-2)?.[0]).toMatch(/^start-up checks: 1 of \d+ checks failed, 1 with a warning$/);
  expect(lines.at(-1)).toEqual(['REELFLOW_STRICT_START=0: starting with 1 failed check(s)', 'warn']);
});

test('the tenants file: off without one; else its tenants and what an unknown tenant does', () => {
  expect(tenantsFileCheck(base)).toMatchObject({
    id: 'tenants.file',
    ok: true,
    detail: 'off (REELFLOW_TENANTS_FILE unset)',
  });
  expect(tenantsFileCheck(withTenants({ tenants: { acme: {}, initech: {} } })).detail).toBe(
    '2 tenant(s) (acme, initech); a pipeline naming no tenant or an unknown one is refused',
  );
  const many = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'shared'].map((t) => [t, {}]));
  expect(tenantsFileCheck(withTenants({ defaultTenant: 'shared', tenants: many })).detail).toBe(
    '6 tenant(s) (a, b, c, d, e and 1 more); a pipeline naming no tenant or an unknown one runs as "shared"',
  );
});
