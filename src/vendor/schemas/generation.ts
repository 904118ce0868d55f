/** Generation interface (spec 2.1, 2.2, 4.1). Query shape: assumptions.ts. */
import { z } from 'zod';
import { MediaRefSchema, NonEmptyString, HttpUrlSchema } from './common';

const Role = NonEmptyString.optional();

const UrlObject = z.strictObject({ url: MediaRefSchema });

export const TextContentSchema = z.strictObject({ type: z.literal('text'), text: NonEmptyString, role: Role });
export const ImageContentSchema = z.strictObject({ type: z.literal('image_url'), image_url: UrlObject, role: Role });
export const VideoContentSchema = z.strictObject({ type: z.literal('video_url'), video_url: UrlObject, role: Role });
export const AudioContentSchema = z.strictObject({ type: z.literal('audio_url'), audio_url: UrlObject, role: Role });

export const ContentItemSchema = z.discriminatedUnion('type', [
  TextContentSchema,
  ImageContentSchema,
  VideoContentSchema,
  AudioContentSchema,
]);
export type ContentItem = z.input<typeof ContentItemSchema>;

export const GenerationCreateRequestSchema = z.strictObject({
  model: NonEmptyString,
  content: z.array(ContentItemSchema).min(1, 'must hold at least one item'),
  generate_audio: z.boolean().optional(),
  ratio: z.string().regex(/^\d+:\d+$/, 'must look like 16:9').optional(),
  duration: z.number().positive().optional(),
  watermark: z.boolean().optional(),
  callback_url: HttpUrlSchema.optional(),
  resolution: z.string().regex(/^\d+p$/, 'must look like 720p').optional(),
  seed: z.number().int().optional(),
});
export type GenerationCreateRequest = z.input<typeof GenerationCreateRequestSchema>;

export const GenerationCreateResponseSchema = z.looseObject({ id: NonEmptyString });
export type GenerationCreateResponse = z.output<typeof GenerationCreateResponseSchema>;
