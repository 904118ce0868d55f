/** Generation interface: create and content items. Query shape: assumed-shapes.ts. */
import { z } from 'zod';
import { MediaRefSchema, NonEmptyString, HttpUrlSchema } from './common';

export const CONTENT_TYPES = ['text', 'image_url', 'video_url', 'audio_url'] as const;
const Role = NonEmptyString.optional();

/** `{ url }` of a media content item; `url` is the caller's rule (the definition adds ref: forms). */
const urlObject = (url: z.ZodType<string, string>) => z.strictObject({ url });

/** The content item union over a URL rule: the request's, or the definition's. */
export function contentItemSchema(url: z.ZodType<string, string>) {
  return z.discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('text'), text: NonEmptyString, role: Role }),
      z.strictObject({ type: z.literal('image_url'), image_url: urlObject(url), role: Role }),
      z.strictObject({ type: z.literal('video_url'), video_url: urlObject(url), role: Role }),
      z.strictObject({ type: z.literal('audio_url'), audio_url: urlObject(url), role: Role }),
    ],
    { error: `must be one of ${CONTENT_TYPES.join(', ')}` },
  );
}

/** The upstream's "choose the length automatically" (its SDK documents -1). */
export const AUTO_DURATION = -1;

/**
 * The generation create's fields but callback_url (docs/vendor-contract.md, "How each
 * interface behaves"), over a media URL rule. The pipeline definition's
 * generation stage is built from this too, so the door and the client agree. Types only,
 * no guessed enumerations: the upstream also takes ratio `adaptive` / `keep_ratio`,
 * resolutions such as `4k`, and duration -1 (automatic).
 */
export function generationFields(url: z.ZodType<string, string>) {
  return {
    model: NonEmptyString,
    content: z.array(contentItemSchema(url)).min(1, 'must hold at least one item'),
    generate_audio: z.boolean().optional(),
    ratio: NonEmptyString.optional(),
    duration: z
      .number()
      .refine((n) => n > 0 || n === AUTO_DURATION, 'must be a positive number of seconds, or -1 (automatic)')
      .optional(),
    watermark: z.boolean().optional(),
    resolution: NonEmptyString.optional(),
    seed: z.number().int().optional(),
  };
}

export const GenerationCreateRequestSchema = z.strictObject({
  ...generationFields(MediaRefSchema),
  callback_url: HttpUrlSchema.optional(),
});
export type GenerationCreateRequest = z.input<typeof GenerationCreateRequestSchema>;

export const GenerationCreateResponseSchema = z.looseObject({ id: NonEmptyString });
export type GenerationCreateResponse = z.output<typeof GenerationCreateResponseSchema>;
