/** Asset management (docs/vendor-contract.md): the ten Actions' requests and Results. */
import { z } from 'zod';
import { HttpUrlSchema, NonEmptyString } from './common';
import { GROUP_NAME_CHARS, GROUP_NAME_MAX } from '../documented-values';
import { nullIsAbsent, StatusSchema } from './response';

// The known asset states live with the other plain values (workflows import them without zod).
export { ASSET_STATES, ASSET_TERMINAL_STATES, ASSET_PENDING_STATES, type AssetState } from '../assumed-values';

export const GROUP_TYPES = ['AIGC', 'LivenessFace'] as const;
export type GroupType = (typeof GROUP_TYPES)[number];
export const ASSET_TYPES = ['Image', 'Video', 'Audio'] as const;

/** Chinese characters, letters, digits, - and _, 1..50 characters (docs/vendor-contract.md). */
export const GroupNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .refine((s) => [...s].length <= GROUP_NAME_MAX, `must be at most ${GROUP_NAME_MAX} characters`)
  .refine((s) => GROUP_NAME_CHARS.test(s), 'may hold only Chinese characters, letters, digits, - and _');

/** Request AssetType: the capitalized form or its lowercase (docs/vendor-contract.md). */
export const AssetTypeInputSchema = z.enum(['Image', 'Video', 'Audio', 'image', 'video', 'audio']);

export const ResponseMetadataSchema = z.looseObject({
  Action: z.string(),
  Region: z.string(),
  RequestId: z.string(),
  Service: z.string(),
  Version: z.string(),
});
export type ResponseMetadata = z.output<typeof ResponseMetadataSchema>;

export const AssetGroupSchema = z.looseObject({
  Id: NonEmptyString,
  Name: z.string(),
  Description: z.string().optional(),
  GroupType: z.enum(GROUP_TYPES),
  CreateTime: z.string(),
  UpdateTime: z.string(),
});
export type AssetGroup = z.output<typeof AssetGroupSchema>;

export const AssetSchema = z.looseObject({
  Id: NonEmptyString,
  Name: z.string().optional(),
  AssetType: z.enum(ASSET_TYPES),
  GroupId: z.string(),
  /** ASSET_STATES, but any string may come (Volcengine style: `Processing` while pending). */
  Status: StatusSchema,
  /** Signed, about 12 h, from GetAsset; may be absent while Pending. */
  URL: z.string().optional(),
  CreateTime: z.string(),
  UpdateTime: z.string(),
});
export type Asset = z.output<typeof AssetSchema>;

/**
 * A list Result in either style: `{<list>, Total}` (documented) or the Volcengine OpenAPI
 * style `{Items, Total | TotalCount}`. Callers get `{<list>, Total}` either way.
 */
function listResult<L extends 'Assets' | 'AssetGroups', T>(list: L, item: z.ZodType<T>) {
  const items = z.array(item).optional();
  const count = z.number().int().optional();
  const need = (a: string, b: string) => (r: Record<string, unknown>, ctx: z.RefinementCtx) => {
    if (r[a] === undefined && r[b] === undefined)
      ctx.addIssue({ code: 'custom', path: [a], message: `required (or ${b})` });
  };
  return z
    .looseObject({ [list]: items, Items: items, Total: count, TotalCount: count })
    .superRefine(need(list, 'Items'))
    .superRefine(need('Total', 'TotalCount'))
    .transform((r) => {
      const { Items, TotalCount, ...rest } = r as Record<string, unknown> & { Items?: T[]; TotalCount?: number };
      const found = (rest[list] as T[] | undefined) ?? Items ?? [];
      const total = (rest.Total as number | undefined) ?? TotalCount ?? 0;
      return { ...rest, [list]: found, Total: total } as Record<string, unknown> & Record<L, T[]> & { Total: number };
    });
}

const IdRequest = z.strictObject({ Id: NonEmptyString });
const EmptyResult = z.looseObject({});

/**
 * One entry per Action: request schema, Result schema, and whether ResponseMetadata is
 * documented for it (ListAssetGroups shows only Result).
 */
export const ASSET_ACTIONS = {
  CreateAssetGroup: {
    request: z.strictObject({ Name: GroupNameSchema, Description: z.string().optional() }),
    result: z.looseObject({ Id: NonEmptyString, Name: z.string(), Description: z.string().optional() }),
    metadata: true,
    idempotent: false,
  },
  ListAssetGroups: {
    request: z
      .strictObject({ Filter: z.strictObject({ GroupType: z.enum(GROUP_TYPES).optional() }).optional() })
      .optional(),
    result: listResult('AssetGroups', AssetGroupSchema),
    metadata: false,
    idempotent: true,
  },
  GetAssetGroup: {
    request: IdRequest,
    result: z.looseObject({
      Id: NonEmptyString,
      Name: z.string(),
      Description: z.string().optional(),
      GroupType: z.enum(GROUP_TYPES).optional(),
      CreateTime: z.string(),
      UpdateTime: z.string(),
    }),
    metadata: true,
    idempotent: true,
  },
  UpdateAssetGroup: {
    request: z.strictObject({
      Id: NonEmptyString,
      Name: GroupNameSchema.optional(),
      Description: z.string().optional(),
    }),
    result: EmptyResult,
    metadata: true,
    idempotent: true,
  },
  DeleteAssetGroup: { request: IdRequest, result: EmptyResult, metadata: true, idempotent: true },
  CreateAsset: {
    request: z.strictObject({
      GroupId: NonEmptyString,
      URL: HttpUrlSchema,
      AssetType: AssetTypeInputSchema.optional(),
      Name: z.string().optional(),
    }),
    result: z.looseObject({ Id: NonEmptyString }),
    metadata: true,
    idempotent: false,
  },
  ListAssets: {
    request: z
      .strictObject({
        Filter: z.strictObject({ GroupIds: z.array(NonEmptyString).optional() }).optional(),
        PageNumber: z.number().int().min(1).optional(),
        PageSize: z.number().int().min(1).optional(),
      })
      .optional(),
    result: listResult('Assets', AssetSchema),
    metadata: true,
    idempotent: true,
  },
  GetAsset: { request: IdRequest, result: AssetSchema, metadata: true, idempotent: true },
  UpdateAsset: {
    request: z.strictObject({ Id: NonEmptyString, Name: z.string().optional() }),
    result: EmptyResult,
    metadata: true,
    idempotent: true,
  },
  DeleteAsset: { request: IdRequest, result: EmptyResult, metadata: true, idempotent: true },
} as const;

export type AssetActionName = keyof typeof ASSET_ACTIONS;

export type AssetRequest<A extends AssetActionName> = z.input<(typeof ASSET_ACTIONS)[A]['request']>;
export type AssetResult<A extends AssetActionName> = z.output<(typeof ASSET_ACTIONS)[A]['result']>;

/** Request field names of an Action, to name the field in a vendor 400. */
export const ASSET_ACTION_FIELDS: Readonly<Record<AssetActionName, readonly string[]>> = {
  CreateAssetGroup: ['Name', 'Description'],
  ListAssetGroups: ['Filter.GroupType', 'Filter'],
  GetAssetGroup: ['Id'],
  UpdateAssetGroup: ['Id', 'Name', 'Description'],
  DeleteAssetGroup: ['Id'],
  CreateAsset: ['GroupId', 'URL', 'AssetType', 'Name'],
  ListAssets: ['Filter.GroupIds', 'Filter', 'PageNumber', 'PageSize'],
  GetAsset: ['Id'],
  UpdateAsset: ['Id', 'Name'],
  DeleteAsset: ['Id'],
};

/** The success envelope for an Action (docs/vendor-contract.md); `null` members count as absent. */
export function assetEnvelopeSchema<A extends AssetActionName>(action: A) {
  const spec = ASSET_ACTIONS[action];
  return nullIsAbsent(
    z.looseObject({
      ResponseMetadata: spec.metadata ? ResponseMetadataSchema : ResponseMetadataSchema.optional(),
      Result: spec.result,
    }),
  );
}
