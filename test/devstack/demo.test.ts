/**
 * `npm run demo`, in-process: its own dev server (Web UI on), the emulator, the worker
 * process with the callback receiver, examples/pipeline.json through all four stages.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keptStackEnv, portsFromEnv, runDemo } from '../../tools/devstack/demo';
import { startEmulator } from '../../src/emulator';
import { configCheck, vendorChecksFromEnv } from '../../src/workers/doctor';
import { localChecks } from '../../src/workers/doctor/local';

/** The variables of `export A=1 B=2   # comment` lines, as a shell would set them. */
function exported(lines: string[]): Record<string, string> {
  const words = lines.flatMap((l) => l.replace(/#.*$/, '').trim().split(/\s+/).slice(1));
  return Object.fromEntries(words.map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
}

test('the demo runs examples/pipeline.json on the whole local stack and stops it', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-demo-'));
  let out = '';
  let err = '';
  const report = await runDemo({
    dataDir,
    installRuntime: false, // the test setup installed one
    workflowsPath: require.resolve('../../src/workflows'),
    out: { write: (s: string) => (out += s) },
    err: { write: (s: string) => (err += s) },
    intervalMs: 300,
  });
  expect(report.code).toBe(0);
  expect(report.outcome?.status).toBe('completed');
  const id = report.workflowId!;
  expect(id).toMatch(/^reelflow-demo-[a-z0-9]{8}$/);

  expect(out).toMatch(/ {2}temporal {3}127\.0\.0\.1:\d+ · Web UI http:\/\/127\.0\.0\.1:\d+ · /);
  expect(out).toMatch(/ {2}emulator {3}http:\/\/127\.0\.0\.1:\d+/);
  expect(out).toMatch(
    / {2}worker {5}task queues reelflow, reelflow\.getasset\.default · callbacks http:\/\/127\.0\.0\.1:\d+/,
  );
  // Which intermediate states a poll catches depends on timing; every stage shows up, and ends done.
  for (const stage of ['review', 'assets', 'generation', 'erase'])
    expect(out).toMatch(new RegExp(`^${stage}: done`, 'm'));
  expect(out).toContain(`pipeline ${id} completed`);
  expect(out).toMatch(/erase \([\d.]+ s\): task \S+/);
  expect(report.webUiUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/namespaces/default/workflows/${id}$`));
  expect(out).toContain(`Web UI: ${report.webUiUrl}`);
  expect(out).toMatch(/stopping the stack… done\n$/);

  // Its files stay under the data dir: SQLite, logs, archived videos.
  expect(readdirSync(dataDir).sort()).toEqual(expect.arrayContaining(['archive', 'demo', 'temporal.db']));
  // One folder per vendor task under the pipeline's folder.
  const archived = readdirSync(path.join(dataDir, 'archive', id), { recursive: true }).map((f) =>
    path.basename(String(f)),
  );
  expect(archived).toEqual(expect.arrayContaining(['erased.mp4', 'generated.mp4']));
  // Secrets of the stack never reach the output (the callback secret is random per run).
  expect(out + err).not.toMatch(/REELFLOW_CALLBACK_SECRET/);
}, 240_000);

test('demo ports from the environment; a bad one names its variable', () => {
  expect(portsFromEnv({ REELFLOW_DEMO_TEMPORAL_PORT: '7233', REELFLOW_DEMO_UI_PORT: '8233' })).toEqual({
    temporal: 7233,
    ui: 8233,
  });
  expect(() => portsFromEnv({ REELFLOW_DEMO_EMULATOR_PORT: 'abc' })).toThrow(
    'REELFLOW_DEMO_EMULATOR_PORT must be a port number 1-65535',
  );
});

test('demo --keep prints what doctor needs: its vendor and local checks all pass against the emulator', async () => {
  const emulator = await startEmulator({ host: '127.0.0.1', port: 0 });
  try {
    const archiveDir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-demo-keep-'));
    const server = { address: '127.0.0.1:7233', namespace: 'default', uiUrl: 'http://127.0.0.1:8233' };
    const lines = keptStackEnv({ server, emulatorUrl: emulator.url, archiveDir });
    expect(lines.join('\n')).toMatch(/# the emulator's built-in test key and token: not secrets/);
    const env = exported(lines);
    const { config, result } = configCheck(env);
    expect(result).toMatchObject({ ok: true });
    const checks = [...(await vendorChecksFromEnv(config!, env)), ...(await localChecks(config!, env))];
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks.map((c) => c.id)).toEqual(
      expect.arrayContaining(['vendor.default.generation', 'vendor.default.erase', 'vendor.default.assets']),
    );
  } finally {
    await emulator.close();
  }
});
