/**
 * A fifth stage that only tests know, "thumbnail", proves the stage loop is open
 * (docs/architecture.md, "How to add a stage"): its emulator route, schema, activities and
 * stage definition live in test/workflows/added-stage/ and reach the product only through its
 * extension points; a test workflow runs the product's four stages and then it, on the real
 * dev server against the emulator over HTTP, and its history replays.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { statusQuery, type PipelineResult } from '../../src/contract/messages';
import { importsOf, resolveTs, tsFiles } from '../support/import-graph';
import { startHarness, type Harness } from '../support/harness';
import { thumbnailActivities } from './added-stage/thumbnail-activities';
import { thumbnailRoute } from './added-stage/thumbnail-route';
import type { ThumbnailResult } from './added-stage/thumbnail-stage';

const ROOT = path.resolve(__dirname, '../..');
const STAGE_DIR = path.join('test', 'workflows', 'added-stage');

/** What "How to add a stage" names as the extension points a stage outside the table may use. */
const EXTENSION_POINTS = [
  'src/emulator/index.ts', // EmulatorOptions.routes, ExtraRoute
  'src/workflows/video-pipeline.ts', // pipelineOf, PIPELINE_STAGES
  'src/workflows/lib/stage-definition.ts', // StageDefinition
  'src/contract/stages.ts', // the StageName type its name is cast to
  'src/contract/messages.ts', // the pipeline's input and result types
];

test('the added stage reaches the product only through its extension points', () => {
  const files = tsFiles(ROOT, STAGE_DIR);
  expect(files.length).toBe(5);
  const reached = files.flatMap((f) =>
    importsOf(path.join(ROOT, f))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) =>
        path
          .relative(ROOT, resolveTs(path.join(ROOT, f), spec))
          .split(path.sep)
          .join('/'),
      ),
  );
  const product = [...new Set(reached.filter((f) => !f.startsWith(`${STAGE_DIR.split(path.sep).join('/')}/`)))];
  expect(product.filter((f) => !EXTENSION_POINTS.includes(f))).toEqual([]);
});

let h: Harness;
let route: ReturnType<typeof thumbnailRoute>;
let nativeConnection: NativeConnection;
let worker: Worker;
let running: Promise<void>;
const workflowsPath = require.resolve('./added-stage/thumbnail-workflow');

beforeAll(async () => {
  route = thumbnailRoute();
  h = await startHarness({ emulator: { routes: [route] }, inProcessWorkers: false });
  nativeConnection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const product = createActivities({
    vendorFor: () => h.vendor,
    archiveRoot: h.archiveRoot,
    archiveAllowPrivate: true, // the emulator serves media on 127.0.0.1
  });
  worker = await Worker.create({
    connection: nativeConnection,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: h.taskQueue,
    workflowsPath,
    activities: { ...product, ...thumbnailActivities(h.emulator.url) },
  });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await nativeConnection?.close();
  await h?.close();
});

test('a pipeline runs generation, erase and then the test-only thumbnail stage, and replays', async () => {
  const definition = {
    name: 'thumbnail',
    generation: { model: 'video-model-1', content: [{ type: 'text', text: 'a lamp' }], ratio: '16:9', duration: 5 },
    erase: true,
    options: { allowPrivateHosts: true },
  };
  const handle = await h.client.workflow.start('thumbnailPipeline', {
    taskQueue: h.taskQueue,
    workflowId: `thumbnail-${h.taskQueue}`,
    args: [{ definition }],
  });
  const result = (await handle.result()) as PipelineResult & { thumbnail?: ThumbnailResult };
  expect(route.created).toEqual([result.thumbnail?.taskId]);
  expect(result.thumbnail?.imageUrl).toMatch(/\/thumbnail-media\/thumb-1\.jpg$/);
  expect(result.erase?.taskId).toBeDefined();
  const status = await handle.query(statusQuery);
  const states = Object.fromEntries(Object.entries(status.stages).map(([name, s]) => [name, s.state]));
  expect(states).toEqual({
    review: 'skipped',
    assets: 'skipped',
    generation: 'done',
    erase: 'done',
    thumbnail: 'done',
  });
  expect(result.archived.map((f) => f.name)).toEqual(['generated.mp4', 'erased.mp4', 'thumbnail.jpg']);
  expect(existsSync(result.archived[2].path)).toBe(true);
  await Worker.runReplayHistory({ workflowsPath }, await handle.fetchHistory(), handle.workflowId);
});
