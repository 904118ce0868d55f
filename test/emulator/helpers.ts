/**
 * Helpers of the emulator's tests: an emulator on a random port with a frozen base clock
 * (time moves only through advanceClock, so state machines are deterministic) and small
 * HTTP helpers per interface. Callback receivers: test/support/http-server.ts.
 */
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator';
import { API_KEY, FROZEN_CLOCK_TIMINGS, USER_1 } from '../support/emulator';

export const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
export const TRACK = '0123456789abcdef0123456789abcdef';

export async function start(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ profile: FROZEN_CLOCK_TIMINGS, clock: () => T0, ...opts });
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Bodies are `any`: tests assert on their shape field by field. */
async function call(url: string, init: RequestInit): Promise<Res> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, headers: res.headers, body };
}

const jsonHeaders = { 'content-type': 'application/json' };
const bodyOf = (body: unknown): string | undefined =>
  body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);

export function api(emu: RunningEmulator) {
  const u = emu.url;
  return {
    createGeneration: (body: unknown, key: string | null = API_KEY, extra: Record<string, string> = {}) =>
      call(`${u}/v1/task/create`, {
        method: 'POST',
        headers: { ...jsonHeaders, ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra },
        body: bodyOf(body),
      }),
    getGeneration: (id: string, key: string | null = API_KEY) =>
      call(`${u}/v1/task/get/${id}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }),
    createErase: (body: unknown, headers: Record<string, string> = {}, key: string | null = API_KEY) =>
      call(`${u}/api/v1/svc-tools/svc-erase-video-subtitle-pro`, {
        method: 'POST',
        headers: { ...jsonHeaders, ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
        body: bodyOf(body),
      }),
    getErase: (id: string, key: string | null = API_KEY) =>
      call(`${u}/api/v1/svc-tasks/${id}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }),
    asset: (
      action: string | null,
      body?: unknown,
      token: string | null = USER_1,
      headers: Record<string, string> = {},
    ) =>
      call(`${u}/api/asset-management${action === null ? '' : `?Action=${action}`}`, {
        method: 'POST',
        headers: { ...jsonHeaders, ...(token ? { 'x-access-token': token } : {}), ...headers },
        body: bodyOf(body),
      }),
    review: (mode: 'sync' | 'async', body: unknown, token: string | null = USER_1, track: string | null = TRACK) =>
      call(`${u}/api/asset/upload/${mode}`, {
        method: 'POST',
        headers: {
          ...jsonHeaders,
          ...(token ? { 'x-access-token': token } : {}),
          ...(track ? { 'x-track-id': track } : {}),
        },
        body: bodyOf(body),
      }),
    getReview: (id: string, token: string | null = USER_1, track: string | null = TRACK) =>
      call(`${u}/api/task/${id}`, {
        headers: { ...(token ? { 'x-access-token': token } : {}), ...(track ? { 'x-track-id': track } : {}) },
      }),
    admin: (method: 'GET' | 'POST', path: string, body?: unknown) =>
      call(`${u}/__emulator/${path}`, { method, headers: jsonHeaders, body: bodyOf(body) }),
  };
}

export const prompt = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'video-model-1',
  content: [{ type: 'text', text }],
  ...extra,
});

/** A generated task, moved to succeeded; returns its id and original video URL. */
export async function generatedVideo(emu: RunningEmulator, text = 'a cat on a skateboard') {
  const created = await api(emu).createGeneration(prompt(text));
  expect(created.status).toBe(200);
  emu.advanceClock(3_000);
  const got = await api(emu).getGeneration(created.body.id);
  expect(got.body.status).toBe('succeeded');
  // Seed dialect: top-level video_url; upstream: content.video_url.
  return { id: created.body.id as string, videoUrl: (got.body.video_url ?? got.body.content?.video_url) as string };
}

/** The user's system group of a kind. */
export async function systemGroupId(
  emu: RunningEmulator,
  type: 'AIGC' | 'LivenessFace',
  token = USER_1,
): Promise<string> {
  const res = await api(emu).asset('ListAssetGroups', { Filter: { GroupType: type } }, token);
  return (res.body.Result.AssetGroups ?? res.body.Result.Items)[0].Id; // Items: upstream dialect
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
