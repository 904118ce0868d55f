/**
 * A test-only vendor interface, "thumbnail": its answers as the emulator route sends them and
 * the activities check them (docs/architecture.md, "How to add a stage").
 */
import { z } from 'zod';

export const THUMBNAIL_STATES = ['running', 'done'] as const;

export const ThumbnailCreated = z.object({ task_id: z.string() });

export const ThumbnailTask = z.object({
  task_id: z.string(),
  status: z.enum(THUMBNAIL_STATES),
  image_url: z.string().optional(),
});
export type ThumbnailTask = z.infer<typeof ThumbnailTask>;
