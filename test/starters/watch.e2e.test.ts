/**
 * watchPipeline and followPipeline's onStatus report changes only (docs/library.md): a pipeline
 * that polls its vendor task several times in one state gives one snapshot for that state.
 */
import { followPipeline } from '../../src/starters/client/pipeline-client';
import { statusKey } from '../../src/starters/client/status-change';
import { watchPipeline, type PipelineChange } from '../../src/starters/client/watch';
import type { PipelineStatus } from '../../src/contract/messages';
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
beforeAll(async () => {
  // Generation runs 3 s: with 100 ms between status queries, many polls see the same state.
  h = await startHarness({ emulator: { profile: { generationRunningMs: 3_000 } } });
});
afterAll(() => h?.close());

const definition = {
  name: 'watch',
  generation: { model: 'video-model-1', content: [{ type: 'text' as const, text: 'watch' }] },
  options: { archive: false },
};

test('watchPipeline yields each change once, in version order, and ends with the outcome', async () => {
  const handle = await h.start(definition);
  const changes: PipelineChange[] = [];
  for await (const c of watchPipeline(h.client, handle.workflowId, { intervalMs: 100 })) changes.push(c);
  const last = changes[changes.length - 1];
  expect(last).toMatchObject({ kind: 'end', end: { status: 'completed' } });
  const keys = changes
    .filter((c) => c.kind === 'status')
    .map((c) => statusKey((c as { status: PipelineStatus }).status));
  for (let i = 1; i < keys.length; i++) expect(keys[i]).not.toBe(keys[i - 1]);
  const versions = changes.map((c) => c.version);
  expect([...versions].sort((a, b) => a - b)).toEqual(versions);
  expect(changes.some((c) => c.kind === 'status' && c.status.stages.generation.state === 'running')).toBe(true);
});

test('onStatus fires on change only, while every answered query is seen by onAnswer', async () => {
  const handle = await h.start(definition);
  const seen: PipelineStatus[] = [];
  let answers = 0;
  const outcome = await followPipeline(h.client, handle.workflowId, {
    intervalMs: 100,
    onStatus: (s) => seen.push(s),
    onAnswer: () => answers++,
  });
  expect(outcome.status).toBe('completed');
  for (let i = 1; i < seen.length; i++) expect(statusKey(seen[i])).not.toBe(statusKey(seen[i - 1]));
  expect(answers).toBeGreaterThan(seen.length);
});
