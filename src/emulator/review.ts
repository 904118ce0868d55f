/**
 * Asset review (docs/vendor-contract.md): sync and async submission, task query with a
 * minimum interval, pending → processing → completed|failed (cancelled via the admin
 * API). Items that pass become Active assets whose Asset:// address generation accepts.
 * The sync response and callback body are the assumed ReviewTaskSchema.
 */
import { MAX_REVIEW_BATCH } from '../vendor-api/documented-values';
import { REVIEW_TERMINAL_STATES, type ReviewState } from '../vendor-api/assumed-values';
import type { ReviewItem } from '../vendor-api/assumed-shapes';
import { addReviewedAsset, findOwnedGroup, signedAssetUrl, systemGroup } from './assets';
import type { EmulatorContext } from './context';
import { withNulls } from './dialect';
import { simpleError } from './errors';
import {
  header,
  isRecord,
  json,
  parseJson,
  wrongContentType,
  type EmuRequest,
  type Reply,
  type ReplyMeta,
} from './http';
import { newId } from './ids';
import { advanceDue, forceTo, staged } from './stages';
import type { ReviewRecord } from './store';
import { hiddenFromQueries, reportedState } from './task-faults';
import { durationFor } from './timings';
import { isHttpUrl, isPublicHttpUrl, mediaTypeOf, normalizeMediaType, type MediaType } from './urls';

/** URL marker that fails that one item (submit_review_status 0). */
export const REJECT_ITEM_MARKER = 'reject';
/** URL marker that fails the whole task (status failed). */
export const FAIL_REVIEW_MARKER = 'fail-review';

type Principal = { principal: string; trackId: string };

/** Both headers are required together (docs/vendor-contract.md, "How each interface behaves"). */
function authenticate(ctx: EmulatorContext, req: EmuRequest): Principal | { reply: Reply } {
  const trackId = header(req, 'x-track-id');
  const auth = ctx.principals.accessToken(req);
  const meta: ReplyMeta = { trackId };
  if (!auth.ok) {
    const message = auth.reason === 'missing' ? 'X-Access-Token header is required' : 'access token is not valid';
    return { reply: simpleError(401, message, meta) };
  }
  if (!trackId) {
    return {
      reply: simpleError(400, 'X-Track-Id header is required together with X-Access-Token', {
        principal: auth.principal,
      }),
    };
  }
  return { principal: auth.principal, trackId };
}

export async function submitReview(ctx: EmulatorContext, req: EmuRequest, mode: 'sync' | 'async'): Promise<Reply> {
  const who = authenticate(ctx, req);
  if ('reply' in who) return who.reply;
  const meta: ReplyMeta = { principal: who.principal, trackId: who.trackId };
  if (wrongContentType(req)) return simpleError(415, 'Content-Type must be application/json', meta);
  const parsed = parseJson(req.body);
  if (!parsed.ok || !isRecord(parsed.value)) return simpleError(400, 'request body must be a JSON object', meta);
  const checked = validateSubmit(ctx, who.principal, parsed.value);
  if ('error' in checked) return { ...checked.error, meta: { ...meta, ...checked.error.meta } };

  const now = ctx.clock.now();
  const taskId = newId.review();
  const pendingMs = durationFor(ctx.timings.reviewPendingMs, taskId);
  const processingMs = durationFor(ctx.timings.reviewProcessingMs, `${taskId}:p`);
  const fails = checked.urls.some((u) => u.toLowerCase().includes(FAIL_REVIEW_MARKER));
  const rec: ReviewRecord = {
    ...staged<ReviewState>('pending', now, [
      ['processing', pendingMs],
      [fails ? 'failed' : 'completed', processingMs],
    ]),
    taskId,
    owner: who.principal,
    mode,
    trackId: who.trackId,
    // The 202 carries a 32-hex track_id: the client's when it has that shape, else a fresh one.
    responseTrackId: /^[0-9a-f]{32}$/i.test(who.trackId) ? who.trackId : newId.trace(),
    callbackUrl: checked.callbackUrl,
    assetType: checked.type,
    urls: checked.urls,
    groupId: checked.groupId,
    groupSource: checked.groupSource,
    batchId: newId.reviewBatch(),
    createdAtMs: now,
    processingWindow: { startMs: now + pendingMs, endMs: now + pendingMs + processingMs },
  };
  ctx.store.review.set(taskId, rec);
  const created = { ...meta, resourceId: taskId, callbackUrl: rec.callbackUrl };

  if (mode === 'async') {
    return json(
      202,
      {
        code: 202,
        task_id: taskId,
        track_id: rec.responseTrackId,
        status: 'pending',
        message: `accepted for review; query GET /api/task/${taskId} for the result`,
        callback_url: rec.callbackUrl ?? (ctx.dialect === 'upstream' ? null : ''),
      },
      created,
    );
  }
  // Sync: hold the answer for the review's duration (real time), then finish it.
  await ctx.timers.sleep(pendingMs + processingMs);
  // reset() or close() cut the wait short: this task belongs to a store that is gone.
  if (ctx.store.review.get(taskId) !== rec) return simpleError(503, 'the emulator was reset or is closing', created);
  const final = rec.plan[rec.plan.length - 1]?.status;
  if (final) {
    const at = Math.max(ctx.clock.now(), rec.updatedAtMs);
    if (rec.status === 'pending') forceTo(rec, 'processing', at);
    finish(ctx, rec, forceTo(rec, final, at).status);
  }
  return json(200, reviewView(ctx, rec), created);
}

export function getReview(ctx: EmulatorContext, req: EmuRequest, taskId: string): Reply {
  const who = authenticate(ctx, req);
  if ('reply' in who) return who.reply;
  const meta: ReplyMeta = { principal: who.principal, trackId: who.trackId, resourceId: taskId };
  const rec = ctx.store.review.get(taskId);
  if (!rec || hiddenFromQueries(ctx, rec)) return simpleError(404, `review task ${taskId} not found`, meta);
  if (rec.owner !== who.principal) return simpleError(403, `review task ${taskId} is not owned by this user`, meta);
  const now = ctx.clock.now();
  const last = ctx.store.reviewLastQuery.get(taskId);
  const minMs = ctx.timings.reviewMinQueryIntervalMs;
  if (last !== undefined && now - last < minMs) {
    const retryAfter = Math.max(1, Math.ceil((last + minMs - now) / 1000));
    return simpleError(429, `query this task at most once per ${minMs} ms`, meta, {
      'retry-after': String(retryAfter),
    });
  }
  ctx.store.reviewLastQuery.set(taskId, now);
  return json(200, reviewView(ctx, rec, reportedState(rec)), meta);
}

/** Scheduler step; the callback goes out when the task ends. */
export function advanceReviews(ctx: EmulatorContext, nowMs: number): void {
  for (const rec of ctx.store.review.values()) {
    if (rec.plan.length > 0) advanceDue(rec, nowMs, (t) => finish(ctx, rec, t.status));
  }
}

/** Admin cancel, so clients can exercise the `cancelled` state. */
export function cancelReview(ctx: EmulatorContext, taskId: string): Reply {
  const rec = ctx.store.review.get(taskId);
  if (!rec) return simpleError(404, `review task ${taskId} not found`);
  if (rec.plan.length === 0) return simpleError(409, `review task ${taskId} is already ${rec.status}`);
  finish(ctx, rec, forceTo(rec, 'cancelled', ctx.clock.now()).status);
  return json(200, reviewView(ctx, rec));
}

/** The query response, also the sync response and callback body, for the state reported. */
export function reviewView(
  ctx: EmulatorContext,
  rec: ReviewRecord,
  status: string = rec.status,
): Record<string, unknown> {
  const total = rec.urls.length;
  const view: Record<string, unknown> = {
    code: 200,
    task_id: rec.taskId,
    status,
    total_count: total,
    done_count: doneCount(ctx, rec),
  };
  if (rec.items && status === rec.status) {
    view.result = { review_batch_id: rec.batchId, items: rec.items.map((i) => itemView(ctx, i)) };
  }
  return withNulls(ctx.dialect, view, ['result']);
}

const ITEM_OPTIONAL = [
  'asset_id',
  'asset_url',
  'downstream_asset_id',
  'downstream_final_url',
  'error_code',
  'error_message',
];

/** One result item; the upstream writes `asset://` in lower case, and null for what is absent. */
function itemView(ctx: EmulatorContext, item: ReviewItem): Record<string, unknown> {
  if (ctx.dialect !== 'upstream') return { ...item };
  const assetUrl = item.asset_url?.replace(/^Asset:\/\//, 'asset://');
  return withNulls(ctx.dialect, { ...item, ...(assetUrl ? { asset_url: assetUrl } : {}) }, ITEM_OPTIONAL);
}

/** Items done so far: grows linearly through processing; cancelled freezes it. */
function doneCount(ctx: EmulatorContext, rec: ReviewRecord): number {
  const total = rec.urls.length;
  if (rec.status === 'completed' || rec.status === 'failed') return total;
  const at = rec.status === 'cancelled' ? rec.updatedAtMs : ctx.clock.now();
  const { startMs, endMs } = rec.processingWindow;
  if (at <= startMs) return 0;
  return Math.min(total - 1, Math.floor((total * (at - startMs)) / Math.max(1, endMs - startMs)));
}

function finish(ctx: EmulatorContext, rec: ReviewRecord, status: ReviewState): void {
  if (!(REVIEW_TERMINAL_STATES as readonly string[]).includes(status)) return;
  if (status === 'completed') rec.items = rec.urls.map((url) => reviewItem(ctx, rec, url));
  if (status === 'failed') {
    rec.items = rec.urls.map((url) => ({
      source_url: url,
      submit_review_status: 0,
      error_code: 'REVIEW_SYSTEM_ERROR',
      error_message: `review task failed (emulator rule: a URL contains "${FAIL_REVIEW_MARKER}")`,
    }));
  }
  if (rec.callbackUrl) ctx.callbacks.send('review.callback', rec.taskId, status, rec.callbackUrl, reviewView(ctx, rec));
}

function reviewItem(ctx: EmulatorContext, rec: ReviewRecord, url: string): ReviewItem {
  if (url.toLowerCase().includes(REJECT_ITEM_MARKER)) {
    return {
      source_url: url,
      submit_review_status: 0,
      error_code: 'REVIEW_REJECTED',
      error_message: `content did not pass review (emulator rule: URL contains "${REJECT_ITEM_MARKER}")`,
    };
  }
  const group = (rec.groupId && findOwnedGroup(ctx, rec.owner, rec.groupId)) || systemGroup(ctx, rec.owner, 'default');
  const asset = addReviewedAsset(ctx, {
    owner: rec.owner,
    groupId: group?.Id ?? '',
    type: rec.assetType,
    url,
    reviewTaskId: rec.taskId,
    atMs: rec.updatedAtMs,
  });
  return {
    asset_id: asset.Id,
    source_url: url,
    asset_url: `Asset://${asset.Id}`,
    downstream_asset_id: asset.Id,
    downstream_final_url: signedAssetUrl(ctx, asset),
    submit_review_status: 1,
  };
}

interface ValidSubmit {
  urls: string[];
  type: MediaType;
  callbackUrl?: string;
  groupId?: string;
  groupSource?: string;
}

function validateSubmit(
  ctx: EmulatorContext,
  user: string,
  body: Record<string, unknown>,
): ValidSubmit | { error: Reply } {
  const fail = (message: string, status = 400) => ({ error: simpleError(status, message) });
  // asset_url_list wins when both are sent (docs/vendor-contract.md).
  const field = body.asset_url_list !== undefined && body.asset_url_list !== null ? 'asset_url_list' : 'images';
  const list = body[field];
  if (list === undefined || list === null) return fail('images (or asset_url_list) is required');
  if (!Array.isArray(list) || list.some((u) => typeof u !== 'string'))
    return fail(`${field} must be an array of URL strings`);
  const urls = list as string[];
  if (urls.length === 0) return fail(`${field} must hold at least one URL`);
  if (urls.length > MAX_REVIEW_BATCH)
    return fail(`${field} holds ${urls.length} URLs; at most ${MAX_REVIEW_BATCH} per submission`);

  let declared: MediaType = 'Image';
  if (body.asset_type !== undefined && body.asset_type !== null && body.asset_type !== '') {
    const t = typeof body.asset_type === 'string' ? normalizeMediaType(body.asset_type) : undefined;
    if (!t) return fail('asset_type must be Image, Video or Audio');
    declared = t;
  }
  const types = new Set<MediaType>();
  for (const [i, url] of urls.entries()) {
    if (!isPublicHttpUrl(url, ctx.selfHosts)) return fail(`${field}[${i}] must be a public http(s) URL`);
    const t = mediaTypeOf(url);
    if (!t)
      return fail(
        `${field}[${i}] has an unsupported extension (Image: .jpeg .jpg .png .webp .bmp .tiff .tif .gif .heic .heif; Video: .mp4 .mov; Audio: .wav .mp3)`,
      );
    types.add(t);
  }
  if (types.size > 1) return fail(`all URLs of one submission must be one type; got ${[...types].join(' and ')}`);
  const inferred = [...types][0];
  if (inferred !== declared) return fail(`asset_type is ${declared} but the URLs are ${inferred}`);

  let callbackUrl: string | undefined;
  if (body.callback_url !== undefined && body.callback_url !== null && body.callback_url !== '') {
    if (typeof body.callback_url !== 'string' || !isHttpUrl(body.callback_url))
      return fail('callback_url must be an absolute http(s) URL');
    callbackUrl = body.callback_url;
  }
  const groupId = typeof body.group_id === 'string' && body.group_id !== '' ? body.group_id : undefined;
  if (body.group_id !== undefined && body.group_id !== null && body.group_id !== '' && !groupId)
    return fail('group_id must be a string');
  const groupSource = typeof body.group_source === 'string' ? body.group_source : undefined;
  if (body.group_source !== undefined && body.group_source !== null && groupSource === undefined)
    return fail('group_source must be a string');
  if (groupSource === 'real_person' && !groupId) return fail('group_id is required when group_source is real_person');
  if (groupId) {
    if (groupSource && groupSource !== 'real_person')
      return fail('group_source may only be empty or real_person when group_id is given');
    const group = findOwnedGroup(ctx, user, groupId);
    if (!group) return fail(`group_id ${groupId} does not exist or is not owned by this user`, 403);
    if (groupSource === 'real_person' && group.GroupType !== 'LivenessFace') {
      return fail('group_source real_person needs the real-person (LivenessFace) group as group_id');
    }
  }
  return { urls, type: declared, callbackUrl, groupId, groupSource };
}
