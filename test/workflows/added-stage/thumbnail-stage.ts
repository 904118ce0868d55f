/**
 * A fifth stage that only tests know: a thumbnail of the generated video, made by the
 * emulator's thumbnail route. It is a StageDefinition like the product's, run by the
 * product's stage loop after them (docs/architecture.md, "How to add a stage"). Workflow code.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { StageName } from '../../../src/contract/stages';
import type { StageDefinition } from '../../../src/workflows/lib/stage-definition';
import type { ThumbnailActivities } from './thumbnail-activities';

const POLL_MS = 200;

const thumbnails = proxyActivities<ThumbnailActivities>({ startToCloseTimeout: '10s' });

export interface ThumbnailInput {
  videoUrl: string;
}

export interface ThumbnailResult {
  taskId: string;
  imageUrl: string;
}

/** Creates the thumbnail task, then polls it until it names its image. */
async function runThumbnail(_rt: unknown, input: ThumbnailInput): Promise<ThumbnailResult> {
  const { taskId } = await thumbnails.thumbnailCreate({ videoUrl: input.videoUrl });
  for (;;) {
    const task = await thumbnails.thumbnailGet({ taskId });
    if (task.status === 'done' && task.image_url) return { taskId, imageUrl: task.image_url };
    await sleep(POLL_MS);
  }
}

export const THUMBNAIL: StageDefinition<ThumbnailInput, ThumbnailResult> = {
  // Not a row of the product's stage table: the cast is the one place the test steps outside it.
  name: 'thumbnail' as StageName,
  enabled: (def) => def.generation !== undefined,
  input: ({ result }) => result.generation && { videoUrl: result.generation.videoUrl },
  run: runThumbnail,
  archives: (out) => ({ as: 'thumbnail', output: { taskId: out.taskId, videoUrl: out.imageUrl } }),
};
