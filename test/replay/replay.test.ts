/**
 * Replay tests on committed histories (test/replay/histories): a workflow change that
 * would break pipelines already running fails here. Every recorded case replays: all
 * stages with a reconciled fault, an operator decision, a cancellation, continue-as-new
 * while polling, the run after a continue-as-new during an operator wait, a rerun that
 * reuses a finished pipeline's outputs, and a pipeline with webhooks (an operator wait and
 * its end) with the delivery workflow it started.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { buildWorkflowBundle } from '../../src/workers/bundle';

const DIR = path.join(__dirname, 'histories');
const ids: Record<string, string> = JSON.parse(readFileSync(path.join(DIR, 'workflow-ids.json'), 'utf8'));
const files = Object.keys(ids).sort();
const load = (f: string): unknown => JSON.parse(readFileSync(path.join(DIR, f), 'utf8'));

test('histories cover every case the pipeline records', () => {
  const cases = new Set(files.map((f) => f.split('.')[1]));
  const expected = ['full', 'ask', 'cancelled', 'continued', 'waited', 'rerun', 'notify', 'notify-delivery'];
  for (const c of expected) expect(cases).toContain(c);
});

test.each(files)('%s replays on the current workflow code', async (file) => {
  await Worker.runReplayHistory(
    { workflowBundle: { codePath: process.env.REELFLOW_TEST_BUNDLE! } },
    load(file),
    ids[file],
  );
});

describe('with the OpenTelemetry workflow interceptors (a worker with tracing on)', () => {
  let codePath: string;
  beforeAll(async () => {
    const outFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'reelflow-tracing-bundle-')), 'bundle.js');
    ({ codePath } = await buildWorkflowBundle({ tracing: true, outFile }));
  }, 120_000);

  // Turning tracing on must not break pipelines already running: the interceptors add no command.
  test.each(files)('%s replays on the tracing bundle', async (file) => {
    await Worker.runReplayHistory(
      { workflowBundle: { codePath }, sinks: { exporter: { export: { fn: () => undefined } } } },
      load(file),
      ids[file],
    );
  });
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
