/**
 * Replay tests on committed histories (test/replay/histories): a workflow change that
 * would break pipelines already running fails here. Every recorded case replays: all
 * stages with a reconciled fault, an operator decision, a cancellation, continue-as-new
 * while polling, and the run after a continue-as-new during an operator wait. Each also
 * replays on the bundle of workers with the payload codec (its failure converter bundled in).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { codecDataConverter } from '../../src/codec';
import { testBundle } from '../workflows/harness';

const DIR = path.join(__dirname, 'histories');
const ids: Record<string, string> = JSON.parse(readFileSync(path.join(DIR, 'workflow-ids.json'), 'utf8'));
const files = Object.keys(ids).sort();
const load = (f: string): unknown => JSON.parse(readFileSync(path.join(DIR, f), 'utf8'));

test('histories cover every case the pipeline records', () => {
  const cases = new Set(files.map((f) => f.split('.')[1]));
  for (const c of ['full', 'ask', 'cancelled', 'continued', 'waited']) expect(cases).toContain(c);
});

test.each(files)('%s replays on the current workflow code', async (file) => {
  await Worker.runReplayHistory(
    { workflowBundle: { codePath: process.env.REELFLOW_TEST_BUNDLE! } },
    load(file),
    ids[file],
  );
});

// Turning the codec on: its bundle converts failures otherwise, never commands.
test.each(files)('%s replays on the bundle of workers with the codec', async (file) => {
  const dataConverter = codecDataConverter({ REELFLOW_CODEC_KEYS: `kid1:${randomBytes(32).toString('base64')}` })!;
  await Worker.runReplayHistory(
    { workflowBundle: await testBundle(dataConverter), dataConverter },
    load(file),
    ids[file],
  );
});

test('an incompatible change to videoPipeline is caught as a determinism violation', async () => {
  const full = files.find((f) => f.split('.')[1] === 'full')!;
  const err = await Worker.runReplayHistory(
    { workflowsPath: require.resolve('./changed-workflows') },
    load(full),
    ids[full],
  ).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DeterminismViolationError);
});
