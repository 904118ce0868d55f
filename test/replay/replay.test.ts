/**
 * Replay tests on committed histories: every release folder test/replay/histories/v<version>/
 * replays (docs/testing.md, "Replay"), so a workflow change that would break pipelines a
 * supported release started fails here. Every recorded case replays: all
 * stages with a reconciled fault, an operator decision, a cancellation, continue-as-new
 * while polling, the run after a continue-as-new during an operator wait, a rerun that
 * reuses a finished pipeline's outputs, a pipeline with webhooks (an operator wait and
 * its end) with the delivery workflow it started, and a tenant's gate with the pipelines it admitted. Each replays on every bundle a worker may load.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { codecDataConverter, codecDataConverterOf, workerCodecFromEnv } from '../../src/codec';
import { testBundle, type TestVariant } from '../support/harness';

const DIR = path.join(__dirname, 'histories');
const semver = (v: string) => v.slice(1).split('.').map(Number);
const newerFirst = (a: string, b: string) => {
  const [x, y] = [semver(a), semver(b)];
  return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
};
/** The release folders (v<version>), newest first. */
const releases = readdirSync(DIR)
  .filter((f) => /^v\d+\.\d+\.\d+$/.test(f))
  .sort(newerFirst);
/** `v<version>/<case>.json` → workflow id, from each folder's workflow-ids.json. */
const ids: Record<string, string> = Object.assign(
  {},
  ...releases.map((v) => {
    const own = JSON.parse(readFileSync(path.join(DIR, v, 'workflow-ids.json'), 'utf8')) as Record<string, string>;
    return Object.fromEntries(Object.entries(own).map(([file, id]) => [`${v}/${file}`, id]));
  }),
);
const files = Object.keys(ids).sort();
const load = (f: string): unknown => JSON.parse(readFileSync(path.join(DIR, f), 'utf8'));
/** The newest release's files: the corpus the record script writes today. */
const newest = files.filter((f) => f.startsWith(`${releases[0]}/`));
const caseOf = (f: string) => path.basename(f, '.json');

test('the newest release covers every case the pipeline records', () => {
  const cases = new Set(newest.map(caseOf));
  const expected = ['full', 'ask', 'cancelled', 'continued', 'waited', 'rerun', 'notify', 'notify-delivery'];
  // The trust-boundary checks: a forged offer flood, a rerun with inline outputs refused, a raw delivery refused.
  expected.push('forged', 'rerun-inline', 'notify-refused', 'failed', 'vendor-check-failed');
  // Tenant concurrency limits: the gate (both sides of its continue-as-new) and two gated pipelines.
  expected.push('gate', 'gate-continued', 'gated', 'gated-cancelled');
  // Spend budgets: a pipeline that waited for its budget, and its tenant's ledger before and
  // after a terminate (the next run reads the money of the run before it).
  expected.push('budget-wait', 'ledger', 'ledger-reopened');
  // A tenant without a budget: counted, never waiting for the ledger's answer.
  expected.push('spend-counted', 'ledger-counted');
  // Local activities in turn: parallel asset items with a group search.
  expected.push('locals-in-turn');
  // Assets named by run: created without listing the group, reconciled by a search.
  expected.push('assets-by-run');
  for (const c of expected) expect(cases).toContain(c);
});

// Turning tracing or the codec on must not break pipelines already running: the tracing
// interceptors add no command, the codec's failure converter converts failures only.
const keys = { REELFLOW_CODEC_KEYS: `kid1:${randomBytes(32).toString('base64')}` };
const codec = codecDataConverter(keys);
// Strict (REELFLOW_CODEC_STRICT=1): every payload of these plaintext histories is tagged and
// every object decoded from one is marked; they replay as recorded (their results carry no
// strictness, so those runs stay lenient).
const strictCodec = codecDataConverterOf(workerCodecFromEnv({ ...keys, REELFLOW_CODEC_STRICT: '1' })!);
const variants: [string, TestVariant][] = [
  ['plain', {}],
  ['tracing', { tracing: true }],
  ['codec', { dataConverter: codec }],
  ['tracing and codec', { tracing: true, dataConverter: codec }],
  ['strict codec', { dataConverter: strictCodec }],
];

describe.each(variants)('on the %s bundle', (_name, variant) => {
  let options: ReplayWorkerOptions;
  beforeAll(async () => {
    options = {
      workflowBundle: await testBundle(variant),
      ...(variant.dataConverter ? { dataConverter: variant.dataConverter } : {}),
      // The tracing interceptors export through this sink; a replay drops what they export.
      ...(variant.tracing ? { sinks: { exporter: { export: { fn: () => undefined } } } } : {}),
    };
  }, 120_000);

  test.each(files)('%s replays', async (file) => {
    await Worker.runReplayHistory(options, load(file), ids[file]);
  });
});

test('an incompatible change to videoPipeline is caught as a determinism violation', async () => {
  const full = newest.find((f) => caseOf(f) === 'full')!;
  const err = await Worker.runReplayHistory(
    { workflowsPath: require.resolve('./changed-workflows') },
    load(full),
    ids[full],
  ).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeterminismViolationError);
});
