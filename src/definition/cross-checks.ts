/**
 * Rules across fields of a definition whose fields each passed: references between
 * stages, the media type a reference carries, and hosts the vendor could not reach.
 */
import { inferMediaType, type MediaType } from '../vendor-api/batching';
import { parseHttpUrl } from '../vendor-api/schemas/common';
import type { ContentItemDefinition, PipelineDefinition } from './schema';
import { invalidIpReason, nonPublicHostReason } from './hosts';
import { ASSET_REF, REVIEW_REF } from './refs';

export interface CrossFieldIssue {
  path: (string | number)[];
  message: string;
}

type Def = PipelineDefinition;

/** The URL of a media content item (a text item has none). */
function contentUrl(item: ContentItemDefinition): string | undefined {
  return item.type === 'text' ? undefined : (item as unknown as Record<string, { url: string }>)[item.type].url;
}

/** The media type each content type takes. */
const CONTENT_MEDIA: Readonly<Record<string, MediaType>> = {
  image_url: 'Image',
  video_url: 'Video',
  audio_url: 'Audio',
};

function reviewType(def: Def, index: number): MediaType | undefined {
  const url = def.review?.media[index];
  const t = url === undefined ? undefined : inferMediaType(url);
  return t?.ok ? t.type : undefined;
}

function stageIssues(def: Def): CrossFieldIssue[] {
  const out: CrossFieldIssue[] = [];
  if (!def.review && !def.assets && !def.generation) {
    out.push({ path: [], message: 'at least one of review, assets, generation is required' });
  }
  if (def.erase && !def.generation) {
    out.push({ path: ['erase'], message: 'erase needs a generation stage (it erases the generated video)' });
  }
  return out;
}

function assetIssues(def: Def, types: Map<string, MediaType | undefined>): CrossFieldIssue[] {
  const out: CrossFieldIssue[] = [];
  const reviewCount = def.review?.media.length ?? 0;
  def.assets?.items.forEach((item, i) => {
    if (types.has(item.name)) out.push({ path: ['assets', 'items', i, 'name'], message: 'duplicate asset name' });
    if ('fromReview' in item && item.fromReview >= reviewCount) {
      out.push({
        path: ['assets', 'items', i, 'fromReview'],
        message: def.review
          ? `review has only ${reviewCount} media (0-based index)`
          : 'no review stage to take it from',
      });
    }
    if (!types.has(item.name))
      types.set(item.name, 'fromReview' in item ? reviewType(def, item.fromReview) : item.type);
  });
  return out;
}

/** What a ref: address stands for, or why it stands for nothing usable. */
function refTarget(
  def: Def,
  url: string,
  assetTypes: Map<string, MediaType | undefined>,
): { type?: MediaType; problem?: string } {
  const r = REVIEW_REF.exec(url);
  if (r) {
    const n = Number(r[1]);
    const count = def.review?.media.length ?? 0;
    if (n >= count)
      return {
        problem: def.review ? `review has only ${count} media (0-based index)` : 'no review stage to reference',
      };
    return { type: reviewType(def, n) };
  }
  const a = ASSET_REF.exec(url);
  if (a) {
    if (!assetTypes.has(a[1])) return { problem: `no asset named "${a[1]}" in assets.items` };
    return { type: assetTypes.get(a[1]) };
  }
  return {};
}

function generationIssues(def: Def, assetTypes: Map<string, MediaType | undefined>): CrossFieldIssue[] {
  const out: CrossFieldIssue[] = [];
  def.generation?.content.forEach((item, i) => {
    const url = contentUrl(item);
    if (url === undefined) return;
    const path = ['generation', 'content', i, item.type, 'url'];
    const { type, problem } = refTarget(def, url, assetTypes);
    const want = CONTENT_MEDIA[item.type];
    if (problem) out.push({ path, message: problem });
    else if (type && type !== want) out.push({ path, message: `${url} is ${type} media; ${item.type} takes ${want}` });
  });
  return out;
}

/** Every http(s) URL of the definition that the vendor will fetch, with its path. */
function mediaUrls(def: Def): { path: (string | number)[]; url: string }[] {
  const out: { path: (string | number)[]; url: string }[] = [];
  def.review?.media.forEach((url, i) => out.push({ path: ['review', 'media', i], url }));
  def.assets?.items.forEach((item, i) => {
    if ('url' in item) out.push({ path: ['assets', 'items', i, 'url'], url: item.url });
  });
  def.generation?.content.forEach((item, i) => {
    const url = contentUrl(item);
    if (url !== undefined) out.push({ path: ['generation', 'content', i, item.type, 'url'], url });
  });
  return out;
}

/** Hosts the vendor could not reach: an invalid IP always; a non-public host unless allowed. */
function hostIssues(def: Def): CrossFieldIssue[] {
  const out: CrossFieldIssue[] = [];
  for (const { path, url } of mediaUrls(def)) {
    const parts = parseHttpUrl(url);
    if (!parts.ok) continue;
    const invalid = invalidIpReason(parts.host);
    const reason = invalid ?? (def.options.allowPrivateHosts ? undefined : nonPublicHostReason(parts.host));
    if (invalid) out.push({ path, message: invalid });
    else if (reason)
      out.push({
        path,
        message: `${reason}: the vendor fetches media from the internet (options.allowPrivateHosts: true for local testing)`,
      });
  }
  return out;
}

/**
 * The webhook target: required, and a valid host. Whether a private host may be used is the
 * worker's decision (REELFLOW_NOTIFY_ALLOW_PRIVATE), judged when it validates the definition
 * and again at send time; options.allowPrivateHosts does not apply (it is about media URLs).
 */
function webhookIssues(def: Def): CrossFieldIssue[] {
  const notify = def.options.notify;
  if (!notify) return [];
  const path = ['options', 'notify', 'url'];
  if (notify.url === undefined) return [{ path, message: 'is required' }];
  const parts = parseHttpUrl(notify.url);
  const invalid = parts.ok ? invalidIpReason(parts.host) : undefined;
  return invalid ? [{ path, message: invalid }] : [];
}

export function crossFieldIssues(def: Def): CrossFieldIssue[] {
  const assetTypes = new Map<string, MediaType | undefined>();
  return [
    ...stageIssues(def),
    ...assetIssues(def, assetTypes),
    ...generationIssues(def, assetTypes),
    ...hostIssues(def),
    ...webhookIssues(def),
  ];
}
