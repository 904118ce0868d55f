/**
 * What the workflow and the vendor client check when a pipeline starts, replayed offline
 * on a definition that passed the door: parse as the workflow does (after the JSON trip
 * through Temporal), the deadlines it turns into timers and timeouts, the review batches
 * and submit requests, the asset group and CreateAsset requests, and the generation
 * request with its references resolved to sample Asset:// ids. Throws what would fail.
 */
import { durationMs, parseDefinition, type PipelineDefinition } from '../../src/definition/definition';
import { pipelineDetails, pipelineSummary, pipelineWorkflowId } from '../../src/starters/client/pipeline-client';
import { inferMediaType, planReviewBatches } from '../../src/vendor-api/batching';
import { ASSET_ACTIONS, GenerationCreateRequestSchema, ReviewSubmitRequestSchema } from '../../src/vendor-api/schemas';
import { validateRequest } from '../../src/vendor-api/validate';
import { vendorAssetName } from '../../src/workflows/stages/assets';
import { ASSET_REF, REVIEW_REF } from '../../src/definition/refs';

const CALLBACK = 'https://callbacks.example.com/cb/token';
const PIPELINE_ID = 'reelflow-fuzz-k3j9x2ab';

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

function deadlines(def: PipelineDefinition): void {
  for (const [key, value] of Object.entries(def.options.deadlines)) {
    if (value === undefined) continue;
    const ms = durationMs(value);
    check(Number.isSafeInteger(ms) && ms > 0, `options.deadlines.${key} = ${ms} ms`);
  }
}

function review(def: PipelineDefinition): void {
  const r = def.review;
  if (!r) return;
  for (const batch of planReviewBatches(r.media, { assetType: r.assetType })) {
    validateRequest('review.submitAsync', ReviewSubmitRequestSchema, {
      images: batch.urls,
      asset_type: batch.assetType,
      ...(r.groupId ? { group_id: r.groupId } : {}),
      ...(r.groupSource !== undefined ? { group_source: r.groupSource } : {}),
      callback_url: CALLBACK,
    });
  }
}

function assets(def: PipelineDefinition): void {
  const a = def.assets;
  if (!a) return;
  if ('id' in a.group) validateRequest('assets.GetAssetGroup', ASSET_ACTIONS.GetAssetGroup.request, { Id: a.group.id });
  else {
    const { name, description } = a.group;
    validateRequest('assets.CreateAssetGroup', ASSET_ACTIONS.CreateAssetGroup.request, {
      Name: name,
      ...(description ? { Description: description } : {}),
    });
  }
  for (const item of a.items) {
    let url: string;
    let type: string;
    if ('url' in item) {
      url = item.url;
      type = item.type;
    } else {
      const source = def.review?.media[item.fromReview];
      check(source !== undefined, `assets item ${item.name}: review item ${item.fromReview} does not exist`);
      const t = inferMediaType(source!);
      check(t.ok, `assets item ${item.name}: no media type`);
      url = `https://cdn.vendor.example.com/reviewed/${item.fromReview}.bin`;
      type = t.ok ? t.type : '';
    }
    validateRequest('assets.CreateAsset', ASSET_ACTIONS.CreateAsset.request, {
      GroupId: 'group-1',
      URL: url,
      AssetType: type,
      Name: vendorAssetName(PIPELINE_ID, item.name),
    });
  }
}

/** As the workflow's resolveRefs: ref:review/N and ref:asset/NAME become Asset:// addresses. */
function resolved(def: PipelineDefinition, url: string): string {
  const r = REVIEW_REF.exec(url);
  if (r) {
    check(Number(r[1]) < (def.review?.media.length ?? 0), `${url}: no such review item`);
    return `Asset://review-${r[1]}`;
  }
  const a = ASSET_REF.exec(url);
  if (a) {
    check(def.assets?.items.some((i) => i.name === a[1]) === true, `${url}: no such asset`);
    return `Asset://asset-${a[1]}`;
  }
  return url;
}

function generation(def: PipelineDefinition): void {
  const gen = def.generation;
  if (!gen) return;
  const content = gen.content.map((c) => {
    if (c.type === 'text') return c;
    const holder = (c as unknown as Record<string, { url: string }>)[c.type];
    return { ...c, [c.type]: { ...holder, url: resolved(def, holder.url) } };
  });
  const request = { ...gen, content };
  validateRequest('generation.create', GenerationCreateRequestSchema, request);
  validateRequest('generation.create', GenerationCreateRequestSchema, { ...request, callback_url: CALLBACK });
}

/** Runs every start-time check on a definition the door accepted; throws what would fail. */
export function startChecks(input: unknown, atTheDoor: PipelineDefinition): void {
  const wire: unknown = JSON.parse(JSON.stringify(input));
  const def = parseDefinition(wire);
  check(JSON.stringify(def) === JSON.stringify(atTheDoor), 'the workflow reads another definition than the door');
  deadlines(def);
  pipelineWorkflowId(def);
  pipelineSummary(def);
  pipelineDetails(def);
  review(def);
  assets(def);
  generation(def);
}
