/**
 * The pipeline definition: what a user writes (JSON) to run review → assets →
 * generation → erase. Validated with zod before anything starts, and again inside the
 * workflow (pure code, workflow-safe). Every error names the field path.
 */
import { z } from 'zod';

import { ASSET_REF, REVIEW_REF } from './refs';

export { ASSET_REF, REVIEW_REF, durationMs } from './refs';

const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), { message: 'must be a public http(s) URL' });

const mediaRef = z
  .string()
  .min(1)
  .refine((u) => !/^data:/i.test(u), { message: 'base64/data URLs are not supported by the vendor; use a public URL' })
  .refine((u) => /^https?:\/\//i.test(u) || /^Asset:\/\//.test(u) || REVIEW_REF.test(u) || ASSET_REF.test(u), {
    message: 'must be a public http(s) URL, an Asset:// address, ref:review/<n> or ref:asset/<name>',
  });

const ASSET_TYPES = ['Image', 'Video', 'Audio'] as const;
const assetType = z.preprocess(
  (v) => (typeof v === 'string' ? v.charAt(0).toUpperCase() + v.slice(1).toLowerCase() : v),
  z.enum(ASSET_TYPES),
);

export const ReviewStageSchema = z.strictObject({
  /** Any number of URLs; split into batches of ≤ 50, one media type per batch. */
  media: z.array(httpUrl).min(1),
  /** Optional: when given, every URL must be of this type. Otherwise inferred per URL. */
  assetType: assetType.optional(),
  groupId: z.string().min(1).optional(),
  groupSource: z.enum(['', 'real_person']).optional(),
  /** Fail the pipeline when any item is not passed (submit_review_status ≠ 1). */
  requireAllPassed: z.boolean().default(true),
});

/** Spec 2.4/8: letters, digits, CJK, '-', '_', at most 50 characters. */
export const GROUP_NAME = /^[\p{Script=Han}A-Za-z0-9_-]{1,50}$/u;

const AssetItemSchema = z.union([
  z.strictObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, - and _ only, at most 40'),
    /** Register review item N's reviewed media. */
    fromReview: z.number().int().nonnegative(),
  }),
  z.strictObject({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, - and _ only, at most 40'),
    url: httpUrl,
    type: assetType,
  }),
]);

export const AssetsStageSchema = z.strictObject({
  group: z.union([
    z.strictObject({ id: z.string().min(1) }),
    z.strictObject({
      name: z.string().regex(GROUP_NAME, 'letters, digits, CJK, - and _ only, at most 50'),
      description: z.string().max(500).optional(),
    }),
  ]),
  items: z.array(AssetItemSchema).min(1),
});

const ContentItemSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string().min(1), role: z.string().optional() }),
  z.strictObject({ type: z.literal('image_url'), image_url: z.strictObject({ url: mediaRef }), role: z.string().optional() }),
  z.strictObject({ type: z.literal('video_url'), video_url: z.strictObject({ url: mediaRef }), role: z.string().optional() }),
  z.strictObject({ type: z.literal('audio_url'), audio_url: z.strictObject({ url: mediaRef }), role: z.string().optional() }),
]);
export type ContentItemDefinition = z.infer<typeof ContentItemSchema>;

/** Every field of spec 2.1 except callback_url, which reelflow sets itself. */
export const GenerationStageSchema = z.strictObject({
  model: z.string().min(1),
  content: z.array(ContentItemSchema).min(1),
  generate_audio: z.boolean().optional(),
  ratio: z.string().regex(/^\d+:\d+$/, 'of the form <w>:<h>, e.g. 16:9').optional(),
  duration: z.number().positive().optional(),
  watermark: z.boolean().optional(),
  resolution: z.string().regex(/^\d+p$/, 'of the form 720p').optional(),
  seed: z.number().int().optional(),
});

const CreatePolicy = z.enum(['resubmit', 'ask']);
const duration = z.union([z.number().int().positive(), z.string().regex(/^\d+(ms|s|m|h)$/, 'e.g. 30s, 5m, 2h')]);

export const OptionsSchema = z.strictObject({
  /** Credential profile the worker maps to secrets from its environment. Never a secret. */
  profile: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/).default('default'),
  callbacks: z.boolean().default(false),
  /** What to do when a create's outcome is ambiguous and reconcile found nothing. */
  ambiguousCreate: z
    .strictObject({
      review: CreatePolicy.default('resubmit'),
      generation: CreatePolicy.default('ask'),
      erase: CreatePolicy.default('ask'),
    })
    .prefault({}),
  deadlines: z
    .strictObject({
      /** Whole pipeline (workflow execution timeout). */
      pipeline: duration.optional(),
      /** An asset still Pending this long is shown as stuck: "contact support" (spec 4.4: 5 min). */
      assetStuck: duration.default('5m'),
      /** An asset still Pending this long fails the stage. */
      assetPending: duration.default('15m'),
      /** How long one stage may wait for the vendor to finish its task. */
      vendorTask: duration.default('2h'),
      /** How long to wait for a callback naming the task after an ambiguous create. */
      callbackGrace: duration.default('60s'),
      /**
       * Bound of one create call, worker included: a worker that dies mid-create is
       * noticed after this long, and the create is then treated as ambiguous.
       */
      createAttempt: duration.default('90s'),
    })
    .prefault({}),
  /** Download the generated and erased videos (sha256) under the worker's archive folder. */
  archive: z.boolean().default(true),
  /** A polling stage continues as new past this many history events (keeps histories small). */
  historyEventsBeforeContinueAsNew: z.number().int().min(50).max(40_000).default(4_000),
});

export const PipelineDefinitionSchema = z
  .strictObject({
    /** Used in the workflow id, e.g. reelflow-<name>-<random>. */
    name: z.string().regex(/^[A-Za-z0-9_-]{1,60}$/, 'letters, digits, - and _ only, at most 60').optional(),
    review: ReviewStageSchema.optional(),
    assets: AssetsStageSchema.optional(),
    generation: GenerationStageSchema.optional(),
    erase: z.boolean().default(false),
    options: OptionsSchema.prefault({}),
  })
  .superRefine((def, ctx) => {
    if (!def.review && !def.assets && !def.generation) {
      ctx.addIssue({ code: 'custom', path: [], message: 'at least one of review, assets, generation is required' });
    }
    if (def.erase && !def.generation) {
      ctx.addIssue({ code: 'custom', path: ['erase'], message: 'erase needs a generation stage (it erases the generated video)' });
    }
    const reviewCount = def.review?.media.length ?? 0;
    def.assets?.items.forEach((item, i) => {
      if ('fromReview' in item && item.fromReview >= reviewCount) {
        ctx.addIssue({
          code: 'custom',
          path: ['assets', 'items', i, 'fromReview'],
          message: def.review ? `review has only ${reviewCount} media (0-based index)` : 'no review stage to take it from',
        });
      }
    });
    const names = new Set<string>();
    def.assets?.items.forEach((item, i) => {
      if (names.has(item.name)) ctx.addIssue({ code: 'custom', path: ['assets', 'items', i, 'name'], message: 'duplicate asset name' });
      names.add(item.name);
    });
    def.generation?.content.forEach((item, i) => {
      const url = item.type === 'text' ? undefined : (item as unknown as Record<string, { url: string }>)[item.type].url;
      if (!url) return;
      const r = REVIEW_REF.exec(url);
      if (r && Number(r[1]) >= reviewCount) {
        ctx.addIssue({
          code: 'custom',
          path: ['generation', 'content', i, item.type, 'url'],
          message: def.review ? `review has only ${reviewCount} media (0-based index)` : 'no review stage to reference',
        });
      }
      const a = ASSET_REF.exec(url);
      if (a && !names.has(a[1])) {
        ctx.addIssue({ code: 'custom', path: ['generation', 'content', i, item.type, 'url'], message: `no asset named "${a[1]}" in assets.items` });
      }
    });
  });

export type PipelineDefinition = z.output<typeof PipelineDefinitionSchema>;
export type PipelineDefinitionInput = z.input<typeof PipelineDefinitionSchema>;

export class DefinitionError extends Error {
  constructor(readonly issues: { path: string; message: string }[]) {
    super(`invalid pipeline definition: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
    this.name = 'DefinitionError';
  }
}

/** Formats a zod path the way users write it: generation.content[1].image_url.url */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), '');
}

export function parseDefinition(input: unknown): PipelineDefinition {
  const res = PipelineDefinitionSchema.safeParse(input);
  if (!res.success) {
    throw new DefinitionError(res.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })));
  }
  return res.data;
}

