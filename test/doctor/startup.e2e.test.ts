/**
 * The worker's start-up checks: with a path word the vendor does not serve, the worker
 * refuses to start by default, naming the check and the variable; with
 * REELFLOW_STRICT_START=0 it starts, warns, and the pipeline's erase create fails at once
 * with VendorCheckFailed, before any erase call reaches the vendor.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { FailureType } from '../../src/failures';
import { loadWorkerConfig } from '../../src/workers/config';
import { startWorkerProcess } from '../../src/workers/main';
import { runStartupChecks } from '../../src/workers/startup-checks';
import { fullDefinition, startHarness, type Harness } from '../support/harness';
import { API_KEY, USER_1 } from '../support/emulator';

let h: Harness | undefined;
afterAll(() => h?.close());

function env(emulatorUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    VENDOR_BASE_URL: emulatorUrl,
    VENDOR_IDENTITY_URL: emulatorUrl,
    VENDOR_PATH_WORD: 'svc',
    REELFLOW_PROFILE_DEFAULT_API_KEY: API_KEY,
    REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: USER_1,
    REELFLOW_ARCHIVE_DIR: mkdtempSync(path.join(os.tmpdir(), 'reelflow-startup-')),
    REELFLOW_ARCHIVE_MAX_BYTES: '1048576',
    REELFLOW_TASK_QUEUE: `startup-${process.pid}-${Date.now()}`,
    ...extra,
  };
}

function failureTypes(err: unknown): string[] {
  const types: string[] = [];
  for (let e = err as { type?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.type) types.push(e.type);
  }
  return types;
}

test('a failed check at start: the default refuses the start; opted out, the erase create fails before any erase call', async () => {
  h = await startHarness({ emulator: { pathWord: 'acme' } });
  const logs: string[] = [];
  const refused = startWorkerProcess({ env: env(h.emulator.url), log: (l) => logs.push(l) });
  await expect(refused).rejects.toThrow(
    /1 start-up check\(s\) failed: vendor erase \(profile default\): .* \(fix: VENDOR_PATH_WORD/,
  );
  await expect(refused).rejects.toThrow(/REELFLOW_STRICT_START=0 starts it anyway/);
  expect(logs.join('\n')).toContain('start-up check failed: vendor erase (profile default)');
  expect(logs.join('\n')).toContain('VENDOR_PATH_WORD is \\"svc\\"');

  // The same checks, opted out: a warning, and the verdict the activities get. A fresh harness serves it.
  const e = env(h.emulator.url, { REELFLOW_STRICT_START: '0' });
  const warned: string[] = [];
  const verdict = await runStartupChecks(loadWorkerConfig(e), e, (l) => warned.push(l));
  expect(warned).toContain('REELFLOW_STRICT_START=0: starting with 1 failed check(s)');
  expect(verdict('default', 'erase')).toContain('/api/v1/svc-tasks/{id} is not a vendor endpoint');
  expect(verdict('default', 'generation')).toBeUndefined();
  await h.close();
  h = await startHarness({ emulator: { pathWord: 'acme' }, vendorCheckFailed: verdict });

  const handle = await h.start(fullDefinition());
  const err = await handle.result().catch((x: unknown) => x);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  expect(failureTypes(err)).toContain(FailureType.VendorCheckFailed);
  const requests = h.emulator.inspect().requests;
  expect(requests.some((r) => r.endpoint === 'generation.create')).toBe(true);
  expect(requests.filter((r) => r.path.includes('-tools/'))).toEqual([]);
});

test('a moment of trouble at start (a reset, a 502, a 429) is asked again, and the start goes ahead', async () => {
  await h?.close();
  h = await startHarness({
    emulator: {
      faults: {
        'generation.get': { resetBeforeCreate: { next: 1 } },
        'erase.get': { upstream502: { next: 2 } },
        'assets.ListAssetGroups': { rateLimit429: { next: 1, retryAfterSeconds: 0 } },
      },
    },
  });
  const e = env(h.emulator.url);
  const logs: string[] = [];
  const failed: string[][] = [];
  await runStartupChecks(
    loadWorkerConfig(e),
    e,
    (l) => logs.push(l),
    (f) => failed.push(f),
  );
  expect(failed).toEqual([[]]);
  const requests = h.emulator.inspect().requests;
  const count = (endpoint: string) => requests.filter((r) => r.endpoint === endpoint).length;
  expect([count('generation.get'), count('erase.get'), count('assets.ListAssetGroups')]).toEqual([2, 3, 2]);
  expect(h.emulator.inspect().counters.faultsInjected).toMatchObject({
    resetBeforeCreate: 1,
    upstream502: 2,
    rateLimit429: 1,
  });
});
