/**
 * Video generation (docs/vendor-contract.md): create, query, the queued → running →
 * succeeded|failed machine, and a callback on every state entered. The query shape and
 * states are the project's assumptions (src/vendor-api/assumed-shapes.ts, assumed-values.ts)
 * in the seed dialect, the Ark content-generation shape in the upstream dialect (dialect.ts).
 */
import { ORIGINAL_URL_VALIDITY_MS } from '../vendor-api/documented-values';
import { GENERATION_TERMINAL_STATES, type GenerationState } from '../vendor-api/assumed-values';
import { requireApiKey } from './auth';
import { unixSeconds } from './clock';
import type { EmulatorContext } from './context';
import { withNulls } from './dialect';
import { simpleError } from './errors';
import { isRecord, json, parseJson, wrongContentType, type EmuRequest, type Reply } from './http';
import { newId } from './ids';
import { advanceDue, forceTo, staged, type Transition } from './stages';
import type { GenerationRecord } from './store';
import { hiddenFromQueries, reportedState } from './task-faults';
import { durationFor } from './timings';
import { isHttpUrl, isPublicHttpUrl, type MediaType } from './urls';

/** Prompt marker that makes a generation fail (documented rule). */
export const FAIL_GENERATION_MARKER = 'fail-generation';
/** Why an `expired` task (the `expire` task fault) ended so. */
const EXPIRED_REASON = 'the task expired at the vendor before it produced a video (emulator fault: expire)';

const MEDIA_TYPES: Record<string, MediaType> = { image_url: 'Image', video_url: 'Video', audio_url: 'Audio' };
/** Roles the spec names, and the item type each belongs to. */
const ROLE_TYPES: Record<string, string> = {
  reference_image: 'image_url',
  first_frame: 'image_url',
  last_frame: 'image_url',
  reference_video: 'video_url',
  reference_audio: 'audio_url',
};

type Checked<T> = { ok: true; value: T } | { ok: false; message: string };
const bad = (message: string): { ok: false; message: string } => ({ ok: false, message });

export function createGeneration(ctx: EmulatorContext, req: EmuRequest): Reply {
  const auth = requireApiKey(ctx.principals, req);
  if ('reply' in auth) return auth.reply;
  const meta = { principal: auth.principal };
  if (wrongContentType(req)) return simpleError(415, 'Content-Type must be application/json', meta);
  const parsed = parseJson(req.body);
  if (!parsed.ok || !isRecord(parsed.value)) return simpleError(400, 'request body must be a JSON object', meta);
  const checked = validate(ctx, parsed.value);
  if (!checked.ok) return simpleError(400, checked.message, meta);

  const now = ctx.clock.now();
  const id = newId.generation();
  const { timings } = ctx;
  const failReason = checked.value.prompt.toLowerCase().includes(FAIL_GENERATION_MARKER)
    ? `content policy violation (emulator rule: prompt contains "${FAIL_GENERATION_MARKER}")`
    : undefined;
  const rec: GenerationRecord = {
    ...staged<GenerationState>('queued', now, [
      ['running', durationFor(timings.generationQueuedMs, id)],
      [failReason ? 'failed' : 'succeeded', durationFor(timings.generationRunningMs, `${id}:run`)],
    ]),
    id,
    owner: auth.principal,
    model: checked.value.model,
    prompt: checked.value.prompt,
    callbackUrl: checked.value.callbackUrl,
    request: parsed.value,
    createdAtMs: now,
    failReason,
  };
  ctx.store.generation.set(id, rec);
  notify(ctx, rec, rec.history[0]);
  return json(200, { id }, { ...meta, resourceId: id, callbackUrl: rec.callbackUrl });
}

export function getGeneration(ctx: EmulatorContext, req: EmuRequest, id: string): Reply {
  const auth = requireApiKey(ctx.principals, req);
  if ('reply' in auth) return auth.reply;
  const rec = ctx.store.generation.get(id);
  const meta = { principal: auth.principal, resourceId: id };
  if (!rec || hiddenFromQueries(ctx, rec)) return simpleError(404, `generation task ${id} not found`, meta);
  return json(200, generationView(ctx, rec, reportedState(rec)), meta);
}

/** Scheduler step: moves every due task on, one callback per state entered. */
export function advanceGenerations(ctx: EmulatorContext, nowMs: number): void {
  for (const rec of ctx.store.generation.values()) {
    if (rec.plan.length > 0) advanceDue(rec, nowMs, (t) => notify(ctx, rec, t));
  }
}

/** Admin cancel (the vendor's cancel endpoint is not shown): only before a terminal state. */
export function cancelGeneration(ctx: EmulatorContext, id: string): Reply {
  const rec = ctx.store.generation.get(id);
  if (!rec) return simpleError(404, `generation task ${id} not found`);
  if (rec.plan.length === 0) return simpleError(409, `generation task ${id} is already ${rec.status}`);
  notify(ctx, rec, forceTo(rec, 'cancelled', ctx.clock.now()));
  return json(200, generationView(ctx, rec));
}

/**
 * The query response and callback body in the emulator's dialect, for the state
 * reported (a task fault may report another than the real one).
 */
export function generationView(
  ctx: EmulatorContext,
  rec: GenerationRecord,
  status: string = rec.status,
): Record<string, unknown> {
  const video = status === 'succeeded' ? generatedVideoUrl(ctx, rec) : undefined;
  const times = { created_at: unixSeconds(rec.createdAtMs), updated_at: unixSeconds(rec.updatedAtMs) };
  if (ctx.dialect === 'upstream') {
    // Ark: the result under `content`, a failure as `error`, no finished_at.
    const lastFrame = video && rec.request.return_last_frame === true ? { last_frame_url: lastFrameUrl(ctx, rec) } : {};
    const content = video ? { video_url: video, ...lastFrame } : undefined;
    const error =
      status === 'failed' ? { code: 'OutputVideoSensitiveContentDetected', message: rec.failReason } : undefined;
    return withNulls(ctx.dialect, { id: rec.id, model: rec.model, status, content, error, ...times }, [
      'content',
      'error',
    ]);
  }
  const view: Record<string, unknown> = { id: rec.id, model: rec.model, status, ...times };
  if ((GENERATION_TERMINAL_STATES as readonly string[]).includes(status))
    view.finished_at = unixSeconds(rec.updatedAtMs);
  if (video) view.video_url = video;
  if (status === 'failed') view.fail_reason = rec.failReason;
  if (status === 'expired') view.fail_reason = EXPIRED_REASON;
  return view;
}

export const generatedVideoPath = (id: string): string => `/media/generated/${id}.mp4`;
export const lastFramePath = (id: string): string => `/media/generated/${id}-last-frame.png`;

/** The last frame (upstream dialect, when the create asked `return_last_frame`): signed like the video. */
function lastFrameUrl(ctx: EmulatorContext, rec: GenerationRecord): string {
  const path = lastFramePath(rec.id);
  return `${ctx.baseUrl}${path}?${ctx.signer.sign(path, rec.updatedAtMs + ORIGINAL_URL_VALIDITY_MS)}`;
}

/** The original URL: signed, expiring 24 h after the video was produced. */
export function generatedVideoUrl(ctx: EmulatorContext, rec: GenerationRecord): string {
  const path = generatedVideoPath(rec.id);
  return `${ctx.baseUrl}${path}?${ctx.signer.sign(path, rec.updatedAtMs + ORIGINAL_URL_VALIDITY_MS)}`;
}

function notify(ctx: EmulatorContext, rec: GenerationRecord, t: Transition<GenerationState>): void {
  if (rec.callbackUrl)
    ctx.callbacks.send('generation.callback', rec.id, t.status, rec.callbackUrl, generationView(ctx, rec));
}

interface ValidCreate {
  model: string;
  prompt: string;
  callbackUrl?: string;
}

function validate(ctx: EmulatorContext, body: Record<string, unknown>): Checked<ValidCreate> {
  if (typeof body.model !== 'string' || body.model.trim() === '')
    return bad('model is required and must be a non-empty string');
  if (!Array.isArray(body.content) || body.content.length === 0)
    return bad('content is required and must be a non-empty array');
  const prompts: string[] = [];
  const roleCounts = new Map<string, number>();
  for (const [i, item] of body.content.entries()) {
    const checked = validateItem(ctx, item, `content[${i}]`);
    if (!checked.ok) return checked;
    if (checked.value.text !== undefined) prompts.push(checked.value.text);
    if (checked.value.role) roleCounts.set(checked.value.role, (roleCounts.get(checked.value.role) ?? 0) + 1);
  }
  for (const role of ['first_frame', 'last_frame']) {
    if ((roleCounts.get(role) ?? 0) > 1) return bad(`content may hold at most one item with role ${role}`);
  }
  const optional = validateOptional(body);
  if (!optional.ok) return optional;
  let callbackUrl: string | undefined;
  if (body.callback_url !== undefined && body.callback_url !== '') {
    if (typeof body.callback_url !== 'string' || !isHttpUrl(body.callback_url)) {
      return bad('callback_url must be an absolute http(s) URL');
    }
    callbackUrl = body.callback_url;
  }
  return { ok: true, value: { model: body.model, prompt: prompts.join('\n'), callbackUrl } };
}

function validateItem(ctx: EmulatorContext, item: unknown, at: string): Checked<{ text?: string; role?: string }> {
  if (!isRecord(item)) return bad(`${at} must be an object`);
  const type = item.type;
  if (typeof type !== 'string' || (type !== 'text' && !(type in MEDIA_TYPES))) {
    return bad(`${at}.type must be one of text, image_url, video_url, audio_url`);
  }
  let role: string | undefined;
  if (item.role !== undefined) {
    // The spec names roles by example ("e.g."), so others pass; a named one must sit on its type.
    if (typeof item.role !== 'string' || item.role.trim() === '') return bad(`${at}.role must be a non-empty string`);
    const expected = ROLE_TYPES[item.role];
    if (expected !== undefined && expected !== type)
      return bad(`${at}.role ${item.role} is not allowed on a ${type} item`);
    role = item.role;
  }
  if (type === 'text') {
    if (typeof item.text !== 'string' || item.text.trim() === '')
      return bad(`${at}.text is required when type is text`);
    return { ok: true, value: { text: item.text, role } };
  }
  const media = item[type];
  const url = isRecord(media) ? media.url : undefined;
  if (typeof url !== 'string' || url.trim() === '') return bad(`${at}.${type}.url is required when type is ${type}`);
  const problem = mediaUrlProblem(ctx, url, MEDIA_TYPES[type]);
  return problem ? bad(`${at}.${type}.url ${problem}`) : { ok: true, value: { role } };
}

/** Why a media reference is refused, or undefined when it is fine. */
function mediaUrlProblem(ctx: EmulatorContext, url: string, expected: MediaType): string | undefined {
  if (/^data:/i.test(url))
    return 'is a base64 data: URL; base64 media is not supported, use a public URL or an Asset:// address';
  const asset = /^asset:\/\/(.+)$/i.exec(url); // Asset:// and asset:// alike
  if (asset) {
    // Generation authenticates by API key, not by user: any asset this emulator issued will do.
    const rec = ctx.store.assets.get(asset[1]);
    if (!rec) return `names an unknown asset ${asset[1]}`;
    if (rec.status !== 'Active') return `names asset ${rec.Id}, which is ${rec.status}, not Active`;
    if (rec.AssetType !== expected) return `names asset ${rec.Id} of type ${rec.AssetType}, expected ${expected}`;
    return undefined;
  }
  if (!isPublicHttpUrl(url, ctx.selfHosts)) return 'must be a public http(s) URL or an Asset:// address';
  return undefined;
}

function validateOptional(body: Record<string, unknown>): Checked<true> {
  const rules: [string, (v: unknown) => boolean, string][] = [
    ['generate_audio', (v) => typeof v === 'boolean', 'a boolean'],
    ['watermark', (v) => typeof v === 'boolean', 'a boolean'],
    // Types, not guessed enumerations: the upstream also takes `adaptive`, `4k` and duration -1 (automatic).
    ['ratio', (v) => typeof v === 'string' && v.trim() !== '', 'a non-empty string, e.g. 16:9'],
    [
      'duration',
      (v) => typeof v === 'number' && Number.isFinite(v) && (v > 0 || v === -1),
      'a positive number of seconds, or -1 (automatic)',
    ],
    ['resolution', (v) => typeof v === 'string' && v.trim() !== '', 'a non-empty string, e.g. 720p'],
    ['seed', (v) => Number.isInteger(v), 'an integer'],
  ];
  for (const [field, ok, what] of rules) {
    if (body[field] !== undefined && !ok(body[field])) return bad(`${field} must be ${what}`);
  }
  return { ok: true, value: true };
}
