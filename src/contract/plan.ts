/**
 * A pipeline's plan of paid creates (docs/tenants.md, "Budgets"): what the stages it still
 * has to run will create, priced as if every create were new (the asset group, each asset
 * item). It is an upper bound: what a stage finds already made is given back at the end.
 */
import type { CreateCount } from './ledger';
import type { PipelineResult } from './messages';
import type { PipelineDefinition } from '../definition/definition';
import { planReviewBatches } from '../vendor-api/batching';

/** Review batches the media make; none when they cannot be batched (the stage then fails before any create). */
function reviewBatches(review: NonNullable<PipelineDefinition['review']>): number {
  try {
    return planReviewBatches(review.media, { assetType: review.assetType }).length;
  } catch {
    return 0;
  }
}

export function plannedCreates(def: PipelineDefinition, result: Partial<PipelineResult> = {}): CreateCount[] {
  const plan: CreateCount[] = [];
  if (def.review && !result.review) plan.push({ kind: 'review', count: reviewBatches(def.review) });
  if (def.assets && !result.assets) {
    if (!('id' in def.assets.group)) plan.push({ kind: 'assetGroup', count: 1 });
    plan.push({ kind: 'asset', count: def.assets.items.length });
  }
  if (def.generation && !result.generation) plan.push({ kind: 'generation', count: 1 });
  if (def.erase && !result.erase) plan.push({ kind: 'erase', count: 1 });
  return plan.filter((c) => c.count > 0);
}
