/**
 * Search attributes reelflow sets on every pipeline, so users can list and filter pipelines in the
 * Web UI and with `reelflow list` / `temporal workflow list`. The dev stack registers them; on a
 * real cluster register them once (docs/deploy.md, "Against the real vendor").
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const STAGE = defineSearchAttributeKey('ReelflowStage', SearchAttributeType.KEYWORD);
export const STATUS = defineSearchAttributeKey('ReelflowStatus', SearchAttributeType.KEYWORD);
export const VENDOR_TASK_IDS = defineSearchAttributeKey('ReelflowVendorTaskIds', SearchAttributeType.KEYWORD_LIST);
/** Set by the client at start (`reelflow start --batch`), never by the workflow: its upserts name only the keys above. */
export const BATCH = defineSearchAttributeKey('ReelflowBatch', SearchAttributeType.KEYWORD);
/**
 * The tenant (docs/tenants.md): set by the client at start from the definition, and by the
 * workflow once the worker's configuration has decided it (a raw start's claim is not trusted).
 */
export const TENANT = defineSearchAttributeKey('ReelflowTenant', SearchAttributeType.KEYWORD);

/** Name → type, for registering on a server. */
export const REELFLOW_SEARCH_ATTRIBUTES = {
  ReelflowStage: 'Keyword',
  ReelflowStatus: 'Keyword',
  ReelflowVendorTaskIds: 'KeywordList',
  ReelflowBatch: 'Keyword',
  ReelflowTenant: 'Keyword',
} as const;
