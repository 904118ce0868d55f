/**
 * The inspection/admin API under /__emulator/: what was created, what was asked, what
 * was injected — so tests can prove "no duplicate task was created" — plus runtime
 * controls (faults, clock, reset, cancel). Owners appear as labels, never credentials.
 */
import type { CallbackDelivery } from './callbacks';
import { iso } from './clock';
import type { EmulatorContext } from './context';
import type { Counters } from './counters';
import { simpleError } from './errors';
import type { FaultConfig } from './faults';
import { isRecord, json, parseJson, type EmuRequest, type Reply } from './http';
import type { RequestRecord } from './request-log';
import type { Staged } from './stages';
import type { AssetRecord, EraseRecord, GenerationRecord, GroupRecord, ReviewRecord } from './store';

export const INSPECTION_PREFIX = '/__emulator/';

type History = { status: string; at: string }[];

export interface InspectionSnapshot {
  url: string;
  now: string;
  nowMs: number;
  generationTasks: {
    id: string;
    owner: string;
    status: string;
    model: string;
    prompt: string;
    callbackUrl?: string;
    request: Record<string, unknown>;
    createdAt: string;
    updatedAt: string;
    failReason?: string;
    history: History;
  }[];
  eraseTasks: {
    taskId: string;
    requestId: string;
    owner: string;
    status: string;
    sourceVideoUrl: string;
    generationTaskId: string;
    traceId?: string;
    callbackUrl?: string;
    callbackSource?: string;
    createdAt: string;
    updatedAt: string;
    failReason?: string;
    history: History;
  }[];
  groups: {
    Id: string;
    Name: string;
    Description: string;
    GroupType: string;
    owner: string;
    system?: string;
    trackId?: string;
    createdAt: string;
    updatedAt: string;
  }[];
  assets: {
    Id: string;
    Name: string;
    AssetType: string;
    GroupId: string;
    Status: string;
    owner: string;
    sourceUrl: string;
    origin: string;
    reviewTaskId?: string;
    trackId?: string;
    createdAt: string;
    updatedAt: string;
    history: History;
  }[];
  reviewTasks: {
    taskId: string;
    owner: string;
    status: string;
    mode: string;
    trackId: string;
    callbackUrl?: string;
    assetType: string;
    urls: string[];
    groupId?: string;
    groupSource?: string;
    createdAt: string;
    updatedAt: string;
    history: History;
  }[];
  callbacks: CallbackDelivery[];
  counters: Counters;
  faults: FaultConfig;
  /** Filled by inspect() and GET /__emulator/requests; omitted from GET /__emulator/state. */
  requests: RequestRecord[];
}

const history = (rec: Staged<string>): History => rec.history.map((t) => ({ status: t.status, at: iso(t.atMs) }));

type View<K extends keyof InspectionSnapshot> = InspectionSnapshot[K] extends (infer T)[] ? T : never;

const generationView = (r: GenerationRecord): View<'generationTasks'> => ({
  id: r.id,
  owner: r.owner,
  status: r.status,
  model: r.model,
  prompt: r.prompt,
  callbackUrl: r.callbackUrl,
  request: r.request,
  createdAt: iso(r.createdAtMs),
  updatedAt: iso(r.updatedAtMs),
  failReason: r.failReason,
  history: history(r),
});

const eraseView = (r: EraseRecord): View<'eraseTasks'> => ({
  taskId: r.taskId,
  requestId: r.requestId,
  owner: r.owner,
  status: r.status,
  sourceVideoUrl: r.sourceVideoUrl,
  generationTaskId: r.generationTaskId,
  traceId: r.traceId,
  callbackUrl: r.callbackUrl,
  callbackSource: r.callbackSource,
  createdAt: iso(r.createdAtMs),
  updatedAt: iso(r.updatedAtMs),
  failReason: r.failReason,
  history: history(r),
});

const groupView = (g: GroupRecord): View<'groups'> => ({
  Id: g.Id,
  Name: g.Name,
  Description: g.Description,
  GroupType: g.GroupType,
  owner: g.owner,
  system: g.system,
  trackId: g.trackId,
  createdAt: iso(g.createdAtMs),
  updatedAt: iso(g.updatedAtMs),
});

const assetView = (a: AssetRecord): View<'assets'> => ({
  Id: a.Id,
  Name: a.Name,
  AssetType: a.AssetType,
  GroupId: a.GroupId,
  Status: a.status,
  owner: a.owner,
  sourceUrl: a.sourceUrl,
  origin: a.origin,
  reviewTaskId: a.reviewTaskId,
  trackId: a.trackId,
  createdAt: iso(a.createdAtMs),
  updatedAt: iso(a.updatedAtMs),
  history: history(a),
});

const reviewView = (r: ReviewRecord): View<'reviewTasks'> => ({
  taskId: r.taskId,
  owner: r.owner,
  status: r.status,
  mode: r.mode,
  trackId: r.trackId,
  callbackUrl: r.callbackUrl,
  assetType: r.assetType,
  urls: r.urls,
  groupId: r.groupId,
  groupSource: r.groupSource,
  createdAt: iso(r.createdAtMs),
  updatedAt: iso(r.updatedAtMs),
  history: history(r),
});

export function snapshot(ctx: EmulatorContext, requests: RequestRecord[]): InspectionSnapshot {
  const { store } = ctx;
  const now = ctx.clock.now();
  return structuredClone({
    url: ctx.baseUrl,
    now: iso(now),
    nowMs: now,
    generationTasks: [...store.generation.values()].map(generationView),
    eraseTasks: [...store.erase.values()].map(eraseView),
    groups: [...store.groups.values()].map(groupView),
    assets: [...store.assets.values()].map(assetView),
    reviewTasks: [...store.review.values()].map(reviewView),
    callbacks: ctx.callbacks.list(),
    counters: ctx.counters,
    faults: ctx.faults.get(),
    requests,
  });
}

/** What the admin routes may do to the running emulator. */
export interface Controls {
  snapshot(): InspectionSnapshot;
  requests(sinceSeq: number): RequestRecord[];
  setFaults(config: unknown): void;
  advanceClock(ms: number): void;
  reset(): void;
  cancelReview(taskId: string): Reply;
  cancelGeneration(id: string): Reply;
}

export function handleInspection(ctl: Controls, req: EmuRequest): Reply {
  const route = req.path.slice(INSPECTION_PREFIX.length);
  const body = () => {
    const parsed = parseJson(req.body);
    return parsed.ok ? (parsed.value ?? {}) : undefined;
  };
  const get = req.method === 'GET';
  const post = req.method === 'POST';

  if (get && route === 'health') return json(200, { ok: true });
  if (get && route === 'state') {
    const { requests: _omitted, ...state } = ctl.snapshot();
    return json(200, state);
  }
  if (get && route === 'requests') {
    const since = Number(req.query.get('since') ?? '0');
    return json(200, { requests: ctl.requests(Number.isFinite(since) ? since : 0) });
  }
  if (get && route === 'faults') {
    const { faults, counters } = ctl.snapshot();
    return json(200, { faults, counters });
  }
  if (post && route === 'faults') {
    const config = body();
    if (config === undefined) return simpleError(400, 'body must be JSON: a fault config');
    try {
      ctl.setFaults(config);
    } catch (err) {
      return simpleError(400, (err as Error).message);
    }
    return json(200, { faults: ctl.snapshot().faults });
  }
  if (post && route === 'clock') {
    const b = body();
    const ms = isRecord(b) ? b.advanceMs : undefined;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      return simpleError(400, 'body must be {"advanceMs": <non-negative number>}');
    }
    ctl.advanceClock(ms);
    const { now, nowMs } = ctl.snapshot();
    return json(200, { now, nowMs });
  }
  if (post && route === 'reset') {
    ctl.reset();
    return json(200, { ok: true });
  }
  const cancel = /^(review|generation)\/([^/]+)\/cancel$/.exec(route);
  if (post && cancel) {
    const id = decodeURIComponent(cancel[2]);
    return cancel[1] === 'review' ? ctl.cancelReview(id) : ctl.cancelGeneration(id);
  }
  return simpleError(404, `no inspection route ${req.method} ${req.path}`);
}
