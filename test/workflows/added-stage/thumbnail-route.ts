/**
 * The thumbnail interface on the emulator, plugged in through EmulatorOptions.routes
 * (docs/architecture.md, "How to add a stage"): a task is created from a video URL, runs for
 * RUNNING_MS of emulator time, then names an image the route also serves.
 */
import type { ExtraRoute, Reply } from '../../../src/emulator';
import type { ThumbnailTask } from './thumbnail-schema';

const RUNNING_MS = 1_000;
/** Not a real JPEG: the archive keeps whatever bytes the URL serves. */
const IMAGE = Buffer.from('thumbnail of a generated video\n');

const reply = (status: number, body: unknown): Reply => ({ status, body });

/** The route, with its own store of tasks (one per emulator). */
export function thumbnailRoute(): ExtraRoute & { created: string[] } {
  const tasks = new Map<string, { videoUrl: string; createdAtMs: number }>();
  const created: string[] = [];
  const taskOf = (id: string, baseUrl: string, nowMs: number): ThumbnailTask | undefined => {
    const t = tasks.get(id);
    if (!t) return undefined;
    return nowMs - t.createdAtMs < RUNNING_MS
      ? { task_id: id, status: 'running' }
      : { task_id: id, status: 'done', image_url: `${baseUrl}/thumbnail-media/${id}.jpg` };
  };
  return {
    created,
    handle(req, { baseUrl, nowMs }) {
      if (req.method === 'POST' && req.path === '/v1/thumbnails') {
        const { video_url } = JSON.parse(req.body.toString('utf8')) as { video_url?: string };
        if (!video_url) return reply(400, { error: 'video_url is required' });
        const id = `thumb-${tasks.size + 1}`;
        tasks.set(id, { videoUrl: video_url, createdAtMs: nowMs });
        created.push(id);
        return reply(200, { task_id: id });
      }
      const get = /^\/v1\/thumbnails\/([^/]+)$/.exec(req.path);
      if (req.method === 'GET' && get) return reply(...found(taskOf(get[1], baseUrl, nowMs)));
      const media = /^\/thumbnail-media\/([^/]+)\.jpg$/.exec(req.path);
      if (req.method === 'GET' && media && tasks.has(media[1])) {
        return { status: 200, body: IMAGE, headers: { 'content-type': 'image/jpeg' } };
      }
      return undefined;
    },
  };
}

function found(task: ThumbnailTask | undefined): [number, unknown] {
  return task ? [200, task] : [404, { error: 'no such task' }];
}
