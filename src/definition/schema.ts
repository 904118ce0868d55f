/**
 * The pipeline definition's shape: the zod schemas of its stages and options, field by
 * field, and the types they give. The cross-field rules (cross-checks.ts) read these types;
 * definition.ts adds those rules to the shape and parses with them.
 */
import { z } from 'zod';
import { inferMediaType, MEDIA_EXTENSIONS, MEDIA_TYPES, type MediaType } from '../vendor-api/batching';
import { GroupNameSchema } from '../vendor-api/schemas/assets';
import {
  checkedString,
  HttpUrlSchema,
  mediaRefProblem,
  NonEmptyString,
  parseHttpUrl,
} from '../vendor-api/schemas/common';
import { generationFields } from '../vendor-api/schemas/generation';
import {
  ASSET_FIRST_READ_AFTER,
  DEADLINE_DEFAULTS,
  WEBHOOK_DELIVERY_TIMEOUT,
  deadlineProblem,
  firstReadProblem,
} from './deadlines';
import { ASSET_REF, REVIEW_REF } from './refs';

/** Image, Video or Audio, in any case ("image" is Image). */
const MediaTypeName = z.preprocess(
  (v) => (typeof v === 'string' ? v.charAt(0).toUpperCase() + v.slice(1).toLowerCase() : v),
  z.enum(MEDIA_TYPES),
) as unknown as z.ZodType<MediaType, string>; // a preprocess's input type is `unknown`: what a user writes is a string

const SUPPORTED_EXTENSIONS = MEDIA_TYPES.map((t) => `${t} .${MEDIA_EXTENSIONS[t].join(' .')}`).join('; ');

/** Review media: an http(s) URL whose extension names a type (the table in vendor-api/batching.ts). */
const ReviewMediaUrl = checkedString((s) => {
  const url = parseHttpUrl(s);
  if (!url.ok) return url.reason;
  const t = inferMediaType(s);
  return t.ok ? undefined : `${t.reason}; review infers the type from it (${SUPPORTED_EXTENSIONS})`;
});

/** Generation media: what the vendor takes, or a reference to an earlier stage's output. */
const DefinitionMediaRef = checkedString((s) => {
  if (REVIEW_REF.test(s) || ASSET_REF.test(s)) return undefined;
  if (/^ref:/i.test(s)) return 'must be ref:review/<n> (0-based review index) or ref:asset/<name>';
  if (!/^(https?|asset|data):/i.test(s))
    return 'must be a public http(s) URL, an Asset:// address, ref:review/<n> or ref:asset/<name>';
  return mediaRefProblem(s);
});

const NAME = /^[A-Za-z0-9_-]+$/;
const nameOf = (max: number) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(NAME, 'may hold only letters, digits, - and _');

export const ReviewStageSchema = z
  .strictObject({
    /** Any number of URLs; split into batches of ≤ 50, one media type per batch. */
    media: z.array(ReviewMediaUrl).min(1, 'must list at least one URL'),
    /** Optional: when given, every URL must be of this type. Otherwise inferred per URL. */
    assetType: MediaTypeName.optional(),
    groupId: NonEmptyString.optional(),
    groupSource: z.enum(['', 'real_person']).optional(),
    /** Fail the pipeline when any item is not passed (submit_review_status ≠ 1). */
    requireAllPassed: z.boolean().default(true),
  })
  .superRefine((review, ctx) => {
    const first = new Map<string, number>();
    review.media.forEach((url, i) => {
      const t = inferMediaType(url);
      if (t.ok && review.assetType && t.type !== review.assetType) {
        ctx.addIssue({
          code: 'custom',
          path: ['media', i],
          message: `is ${t.type} (by its extension), but review.assetType is ${review.assetType}`,
        });
      }
      // Results are matched back by URL: a repeated URL would never get its own result.
      const j = first.get(url);
      if (j !== undefined) ctx.addIssue({ code: 'custom', path: ['media', i], message: `repeats review.media[${j}]` });
      else first.set(url, i);
    });
  });

export type AssetItem = { name: string; fromReview: number } | { name: string; url: string; type: MediaType };

const AssetItemSchema = z
  .strictObject({
    name: nameOf(40),
    /** Register review item N's reviewed media. */
    fromReview: z.number().int().nonnegative().optional(),
    url: HttpUrlSchema.optional(),
    type: MediaTypeName.optional(),
  })
  .superRefine((item, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (item.fromReview !== undefined) {
      if (item.url !== undefined) issue(['url'], 'give url (with type) or fromReview, not both');
      else if (item.type !== undefined)
        issue(['type'], "comes from the reviewed media's extension with fromReview: remove it");
    } else if (item.url === undefined) {
      issue([], 'needs url and type (a media to register), or fromReview (a reviewed one)');
    } else if (item.type === undefined) {
      issue(['type'], `is required with url: one of ${MEDIA_TYPES.join(', ')}`);
    }
  })
  .transform((item) => item as AssetItem);

export type AssetGroupRef = { id: string } | { name: string; description?: string };

const AssetGroupSchema = z
  .strictObject({
    id: NonEmptyString.optional(),
    name: GroupNameSchema.optional(),
    description: z.string().max(500, 'must be at most 500 characters').optional(),
  })
  .superRefine((g, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (g.id !== undefined && g.name !== undefined) issue(['name'], 'give the group id or its name, not both');
    else if (g.id === undefined && g.name === undefined)
      issue([], 'needs id (an existing group) or name (found or created)');
    else if (g.id !== undefined && g.description !== undefined)
      issue(['description'], 'applies only to a group given by name');
  })
  .transform((g) => g as AssetGroupRef);

const FirstRead = z
  .union([z.number(), z.string()], { error: 'must be a duration such as "0s", "5s", or a number of milliseconds' })
  .superRefine((v, ctx) => {
    const problem = firstReadProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const AssetsStageSchema = z.strictObject({
  group: AssetGroupSchema,
  items: z.array(AssetItemSchema).min(1, 'must list at least one asset'),
  /** The wait between CreateAsset and the first GetAsset (src/definition/deadlines.ts). */
  firstReadAfter: FirstRead.default(ASSET_FIRST_READ_AFTER),
});

/** Every field of the vendor's generation create body except callback_url, which reelflow sets itself. */
export const GenerationStageSchema = z.strictObject(generationFields(DefinitionMediaRef));
export type ContentItemDefinition = z.output<typeof GenerationStageSchema>['content'][number];

const CreatePolicy = z.enum(['resubmit', 'ask']);
const Deadline = z
  .union([z.number(), z.string()], {
    error: 'must be a duration such as "30s", "5m", "2h", or a number of milliseconds',
  })
  .superRefine((v, ctx) => {
    const problem = deadlineProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Task priority levels, highest first; src/contract/tenancy.ts maps them to Temporal priority keys. */
export const PRIORITY_LEVELS = ['interactive', 'normal', 'batch'] as const;
export type PriorityLevel = (typeof PRIORITY_LEVELS)[number];

/** A tenant id: ASCII, so at most 64 bytes (Temporal's limit for a fairness key). */
export const TenantIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
    'may hold only letters, digits, ".", "-" and "_", and starts with a letter or digit',
  );

/** A credential profile's name: the worker maps it to secrets from its environment. Never a secret. */
export const ProfileNameSchema = nameOf(40);

export const OptionsSchema = z.strictObject({
  /** Credential profile the worker maps to secrets from its environment. Never a secret. */
  profile: ProfileNameSchema.default('default'),
  /**
   * Who the pipeline works for (docs/tenants.md). The worker's tenant configuration decides
   * whether it is known, its limits and its budget; without one, a tenant is refused.
   */
  tenant: TenantIdSchema.optional(),
  /** interactive, normal (the default) or batch; lowered to the tenant's highest allowed level. */
  priority: z.enum(PRIORITY_LEVELS).optional(),
  /** When the tenant's budget cannot cover a paid create: `wait` (the default) for more, or `fail`. */
  overBudget: z.enum(['wait', 'fail']).optional(),
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
      pipeline: Deadline.optional(),
      /** An asset still Pending this long is shown as stuck: "contact support" (5 min: docs/vendor-contract.md). */
      assetStuck: Deadline.default(DEADLINE_DEFAULTS.assetStuck),
      /** An asset still Pending this long fails the stage. */
      assetPending: Deadline.default(DEADLINE_DEFAULTS.assetPending),
      /** How long one stage may wait for the vendor to finish its task. */
      vendorTask: Deadline.default(DEADLINE_DEFAULTS.vendorTask),
      /** How long to wait for a callback naming the task after an ambiguous create. */
      callbackGrace: Deadline.default(DEADLINE_DEFAULTS.callbackGrace),
      /**
       * Bound of one create call, worker included: a worker that dies mid-create is
       * noticed after this long, and the create is then treated as ambiguous.
       */
      createAttempt: Deadline.default(DEADLINE_DEFAULTS.createAttempt),
      /**
       * How long a task id that a create returned may answer "not found" (the vendor's
       * read-after-write lag) before the stage fails.
       */
      notFoundGrace: Deadline.default(DEADLINE_DEFAULTS.notFoundGrace),
    })
    .prefault({}),
  /** Download the generated and erased videos (sha256) under the worker's archive folder. */
  archive: z.boolean().default(true),
  /** A polling stage continues as new past this many history events (keeps histories small). */
  historyEventsBeforeContinueAsNew: z.number().int().min(50).max(40_000).default(4_000),
  /**
   * Accept media URLs on loopback, private, link-local and local-name hosts. Only for local
   * testing against the emulator: the real vendor cannot reach them.
   */
  allowPrivateHosts: z.boolean().default(false),
  /**
   * Completion webhooks: the pipeline's end and each operator wait are POSTed here, signed
   * (Standard Webhooks), from a small workflow of their own that retries for `deliveryTimeout`.
   * An http(s) URL; a private one only where the worker's REELFLOW_NOTIFY_ALLOW_PRIVATE lists
   * it (allowPrivateHosts does not apply: the worker sends webhooks, not the vendor). The
   * worker may set a default URL. `secret` names the endpoint's own signing secret, which
   * the worker holds as REELFLOW_ENDPOINT_<ID>_WEBHOOK_SECRET (else the profile's secret).
   */
  notify: z
    .strictObject({
      // Required here (crossFieldIssues); absent only in what the worker's validation
      // returns for its own default URL, which it resolves at send time.
      url: HttpUrlSchema.optional(),
      secret: nameOf(40).optional(),
      deliveryTimeout: Deadline.default(WEBHOOK_DELIVERY_TIMEOUT),
    })
    .optional(),
});

/** The definition without its cross-field rules (definition.ts adds them). */
export const PipelineDefinitionShape = z.strictObject({
  /**
   * The JSON Schema the file follows (schema/pipeline-definition.schema.json), for editors.
   * Accepted and ignored: it changes nothing in the pipeline.
   */
  $schema: z.string().optional(),
  /** Used in the workflow id, e.g. reelflow-<name>-<random>. */
  name: nameOf(60).optional(),
  review: ReviewStageSchema.optional(),
  assets: AssetsStageSchema.optional(),
  generation: GenerationStageSchema.optional(),
  erase: z.boolean().default(false),
  options: OptionsSchema.prefault({}),
});

export type PipelineDefinition = z.output<typeof PipelineDefinitionShape>;
/** What a user writes: the definition before defaults (every library call that takes a definition takes this). */
export type PipelineDefinitionInput = z.input<typeof PipelineDefinitionShape>;
