/**
 * Shared test helpers: an emulator on a random port with a frozen base clock (time
 * moves only through advanceClock, so state machines are deterministic), small HTTP
 * helpers per interface, and a local callback receiver.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEmulator, type EmulatorOptions, type RunningEmulator, type Timings } from '../../src/emulator';

/** Sub-second timings; with the frozen clock, only advanceClock moves them. */
export const TEST_TIMINGS: Partial<Timings> = {
  generationQueuedMs: 1_000,
  generationRunningMs: 2_000,
  eraseSubmittedMs: 500,
  eraseQueuedMs: 500,
  eraseInProgressMs: 1_000,
  assetProcessingMs: 1_000,
  reviewPendingMs: 500,
  reviewProcessingMs: 1_000,
  reviewMinQueryIntervalMs: 0,
  tickMs: 20,
};

export const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
export const KEY = 'emu-key';
export const USER1 = 'emu-user-1';
export const USER2 = 'emu-user-2';
export const TRACK = '0123456789abcdef0123456789abcdef';

export async function start(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ profile: TEST_TIMINGS, clock: () => T0, ...opts });
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
    createGeneration: (body: unknown, key: string | null = KEY, extra: Record<string, string> = {}) =>
      call(`${u}/v1/task/create`, {
        method: 'POST',
        headers: { ...jsonHeaders, ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra },
        body: bodyOf(body),
      }),
    getGeneration: (id: string, key: string | null = KEY) =>
      call(`${u}/v1/task/get/${id}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }),
    createErase: (body: unknown, headers: Record<string, string> = {}, key: string | null = KEY) =>
      call(`${u}/api/v1/svc-tools/svc-erase-video-subtitle-pro`, {
        method: 'POST',
        headers: { ...jsonHeaders, ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
        body: bodyOf(body),
      }),
    getErase: (id: string, key: string | null = KEY) =>
      call(`${u}/api/v1/svc-tasks/${id}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }),
    asset: (
      action: string | null,
      body?: unknown,
      token: string | null = USER1,
      headers: Record<string, string> = {},
    ) =>
      call(`${u}/api/asset-management${action === null ? '' : `?Action=${action}`}`, {
        method: 'POST',
        headers: { ...jsonHeaders, ...(token ? { 'x-access-token': token } : {}), ...headers },
        body: bodyOf(body),
      }),
    review: (mode: 'sync' | 'async', body: unknown, token: string | null = USER1, track: string | null = TRACK) =>
      call(`${u}/api/asset/upload/${mode}`, {
        method: 'POST',
        headers: {
          ...jsonHeaders,
          ...(token ? { 'x-access-token': token } : {}),
          ...(track ? { 'x-track-id': track } : {}),
        },
        body: bodyOf(body),
      }),
    getReview: (id: string, token: string | null = USER1, track: string | null = TRACK) =>
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
  token = USER1,
): Promise<string> {
  const res = await api(emu).asset('ListAssetGroups', { Filter: { GroupType: type } }, token);
  return (res.body.Result.AssetGroups ?? res.body.Result.Items)[0].Id; // Items: upstream dialect
}

export interface Received {
  path: string;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** A local HTTP server recording every POST it gets. */
export async function callbackReceiver(status = 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString() || 'null'),
        headers: req.headers,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** Polls until check() is truthy (callbacks arrive asynchronously). */
export async function waitFor<T>(check: () => T | undefined | false, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
