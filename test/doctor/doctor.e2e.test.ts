/**
 * `reelflow doctor` against the real dev server, a running worker and the emulator: green
 * when everything matches; a ✗ naming the path word when the emulator serves another; a ✗
 * for a queue no worker polls; a warning (!) for tenants free to spend on every profile.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CALLBACK_SECRET, startHarness, workerEnv, type Harness } from '../support/harness';
import { API_KEY } from '../support/emulator';
import type { CheckResult } from '../../src/workers/doctor';
import { cli } from '../support/cli';

interface Doc {
  ok: boolean;
  checks: CheckResult[];
}

const PATH_WORD = 'acme';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ emulator: { pathWord: PATH_WORD }, callbacks: true });
});
afterAll(() => h?.close());

function env(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...workerEnv(h),
    VENDOR_PATH_WORD: PATH_WORD,
    REELFLOW_ARCHIVE_DIR: h.archiveRoot,
    REELFLOW_ARCHIVE_MAX_BYTES: String(1024 * 1024),
    REELFLOW_CALLBACK_BASE_URL: h.receiver!.url,
    REELFLOW_CALLBACK_SECRET: CALLBACK_SECRET,
    REELFLOW_CODEC_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    ...overrides,
  };
}

const byId = (doc: Doc, id: string): CheckResult | undefined => doc.checks.find((c) => c.id === id);

test('green: every check passes with the worker running and the configuration matching', async () => {
  const run = await cli(['doctor', '--json'], { env: env() });
  const doc = run.json<Doc>();
  expect(doc.checks.filter((c) => !c.ok)).toEqual([]);
  expect(run.code).toBe(0);
  const ids = doc.checks.map((c) => c.id);
  expect(ids).toEqual(
    expect.arrayContaining([
      'temporal.namespace',
      'temporal.search-attributes',
      `temporal.pollers.${h.taskQueue}`,
      `temporal.pollers.${h.taskQueue}.getasset.default`,
      'vendor.default.generation',
      'vendor.default.erase',
      'vendor.default.assets',
      'vendor.default.review',
      'callbacks',
      'archive',
      'codec',
      'tenants.profiles',
    ]),
  );
});

test('a path word the vendor does not serve: ✗ on erase naming it, the other interfaces ✓', async () => {
  const run = await cli(['doctor'], { env: env({ VENDOR_PATH_WORD: 'svc' }) });
  expect(run.code).toBe(1);
  expect(run.stdout).toContain('✗ vendor erase (profile default): /api/v1/svc-tasks/{id} is not a vendor endpoint');
  expect(run.stdout).toContain('fix: VENDOR_PATH_WORD is "svc"');
  expect(run.stdout).toContain('✓ vendor generation (profile default)');
  expect(run.stdout).toContain('✓ vendor review (profile default)');
  expect(run.stdout).toContain('1 of ');
  expect(run.stdout).not.toContain(API_KEY);
});

test('a queue no worker polls, and refused credentials: ✗ each, with the fix', async () => {
  const run = await cli(['doctor', '--json'], {
    env: env({ REELFLOW_TASK_QUEUE: `${h.taskQueue}-nobody`, REELFLOW_PROFILE_DEFAULT_API_KEY: 'wrong-key' }),
  });
  expect(run.code).toBe(1);
  const doc = run.json<Doc>();
  const queue = byId(doc, `temporal.pollers.${h.taskQueue}-nobody`);
  expect(queue).toMatchObject({ ok: false, detail: expect.stringContaining('no worker polled') });
  expect(queue?.fix).toContain('REELFLOW_TASK_QUEUE');
  expect(byId(doc, `temporal.pollers.${h.taskQueue}-nobody.getasset.default`)?.ok).toBe(false);
  expect(byId(doc, 'vendor.default.generation')).toMatchObject({
    ok: false,
    detail: 'credentials refused (HTTP 401)',
    fix: expect.stringContaining('REELFLOW_PROFILE_DEFAULT_API_KEY'),
  });
  expect(byId(doc, 'vendor.default.assets')?.ok).toBe(true);
  expect(run.stdout).not.toContain('wrong-key');
});

test('a tenant free to spend on every profile: a warning (!), exit 0; a profile not served: ✗ naming the field', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-doctor-tenants-'));
  const file = (name: string, json: unknown) => {
    writeFileSync(path.join(dir, name), JSON.stringify(json));
    return path.join(dir, name);
  };
  const unbound = file('unbound.json', { tenants: { acme: {}, bound: { profiles: ['default'] } } });
  const run = await cli(['doctor'], { env: env({ REELFLOW_TENANTS_FILE: unbound }) });
  expect(run.stdout).toContain(
    '! tenant credential profiles: tenant acme may spend on every credential profile (no "profiles" of their own, none in "defaults")',
  );
  expect(run.stdout).toMatch(/all \d+ checks passed, 1 with a warning/);
  expect(run.code).toBe(0);

  const unserved = file('unserved.json', { tenants: { acme: { profiles: ['default', 'other'] } } });
  const bad = await cli(['doctor', '--json'], { env: env({ REELFLOW_TENANTS_FILE: unserved }) });
  expect(bad.code).toBe(1);
  expect(byId(bad.json<Doc>(), 'config')).toMatchObject({
    ok: false,
    detail: expect.stringContaining(
      'REELFLOW_TENANTS_FILE tenants.acme.profiles.1: must be a profile this worker serves (REELFLOW_PROFILES)',
    ),
  });
});

test('an unreachable Temporal is one ✗ naming the address', async () => {
  const run = await cli(['doctor', '--json', '--address', '127.0.0.1:1'], { env: env() });
  expect(run.code).toBe(1);
  expect(byId(run.json<Doc>(), 'temporal.reachable')).toMatchObject({
    ok: false,
    detail: expect.stringContaining('127.0.0.1:1'),
  });
});
