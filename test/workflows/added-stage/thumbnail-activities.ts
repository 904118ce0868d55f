/**
 * The thumbnail stage's activities: one per endpoint of its interface, registered on the
 * worker beside the product's (docs/architecture.md, "How to add a stage").
 */
import { ThumbnailCreated, ThumbnailTask } from './thumbnail-schema';

async function call(url: string, init?: RequestInit): Promise<unknown> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`thumbnail: ${init?.method ?? 'GET'} ${url} answered ${res.status}`);
  return res.json();
}

export function thumbnailActivities(baseUrl: string) {
  return {
    async thumbnailCreate(input: { videoUrl: string }): Promise<{ taskId: string }> {
      const body = JSON.stringify({ video_url: input.videoUrl });
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
      return { taskId: ThumbnailCreated.parse(await call(`${baseUrl}/v1/thumbnails`, init)).task_id };
    },
    async thumbnailGet(input: { taskId: string }): Promise<ThumbnailTask> {
      return ThumbnailTask.parse(await call(`${baseUrl}/v1/thumbnails/${encodeURIComponent(input.taskId)}`));
    },
  };
}

export type ThumbnailActivities = ReturnType<typeof thumbnailActivities>;
