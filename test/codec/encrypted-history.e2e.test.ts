/**
 * With the payload codec on (real dev server, emulator, callbacks through the receiver):
 * a finished pipeline's raw history, fetched without the codec, holds no prompt and no
 * URL anywhere (payload bytes and the JSON of every event), and neither does a failed
 * one's, whose failure messages and stacks are ciphertext too;
 * summaries and details carry neither even decrypted; the CLI with the codec's
 * environment still shows the result, and the failure with its cause chain and vendor
 * code; `reelflow codec-server` decrypts a history payload for whoever has the token,
 * after the keys rotated.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { defaultPayloadConverter, type DataConverter, type Payload } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { codecDataConverter, codecFromEnv, type EncryptionCodec } from '../../src/codec';
import { runCli } from '../../src/starters/cli/main';
import { startPipeline } from '../../src/starters/client/pipeline-client';
import type { PipelineResult } from '../../src/contract/messages';
import { cli, ROOT } from '../support/cli';
import { fullDefinition, startHarness, testBundle, type Harness } from '../support/harness';

type History = temporal.api.history.v1.IHistory;

const PROMPT = 'a confidential teaser for the spring launch, lit like dawn';
const KID1 = randomBytes(32).toString('base64');
const KID2 = randomBytes(32).toString('base64');
const BEFORE_ROTATION = { REELFLOW_CODEC_KEYS: `kid1:${KID1}` };
const AFTER_ROTATION = { REELFLOW_CODEC_KEYS: `kid1:${KID1},kid2:${KID2}`, REELFLOW_CODEC_KEY_ID: 'kid2' };
const TOKEN = 'codec-server-token-0123456789';
// A private address: reelflow lets it through (allowPrivateHosts), the vendor refuses it.
const REJECTED_URL = 'http://10.20.30.40/audio/theme.mp3';
const VENDOR_SAYS = 'URL must be a public http(s) URL reachable by the upstream';

let h: Harness;
let codec: EncryptionCodec;
let converter: DataConverter;
let workflowId: string;
let failedId: string;
let result: PipelineResult;
let histories: History[];
let failedHistory: History;

async function rawHistory(id: string): Promise<History> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await h.connection.workflowService.getWorkflowExecutionHistory({
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      execution: { workflowId: id },
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return { events };
}

/** Every string and every byte string (as UTF-8) anywhere in `value`. */
function texts(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value instanceof Uint8Array) out.push(Buffer.from(value).toString('utf8'));
  else if (value && typeof value === 'object') for (const v of Object.values(value)) texts(v, out);
  return out;
}

const decodeText = async (p: Payload) => defaultPayloadConverter.fromPayload<string>((await codec.decode([p]))[0]);

/** Every failure in `value` (events' failures and their causes), found by shape. */
function failures(value: unknown, out: temporal.api.failure.v1.IFailure[] = []): temporal.api.failure.v1.IFailure[] {
  if (!value || typeof value !== 'object') return out;
  for (const [k, v] of Object.entries(value)) {
    if ((k === 'failure' || k === 'cause') && v && typeof v === 'object')
      out.push(v as temporal.api.failure.v1.IFailure);
    failures(v, out);
  }
  return out;
}

beforeAll(async () => {
  codec = codecFromEnv(BEFORE_ROTATION)!;
  converter = codecDataConverter(BEFORE_ROTATION)!;
  h = await startHarness({ callbacks: true, dataConverter: converter });
  const base = fullDefinition();
  const generation = base.generation!;
  const definition = {
    ...base,
    options: { allowPrivateHosts: true },
    generation: { ...generation, content: [{ type: 'text' as const, text: PROMPT }, ...generation.content.slice(1)] },
  };
  // Fails at the assets stage: the vendor rejects the audio's URL (400 InvalidParameter).
  const failing = {
    name: 'rejected-media',
    options: { allowPrivateHosts: true },
    assets: { group: { name: `rejected-${Date.now()}` }, items: [{ name: 'bgm', url: REJECTED_URL, type: 'Audio' }] },
    generation: {
      ...generation,
      content: [
        { type: 'text' as const, text: PROMPT },
        { type: 'audio_url' as const, audio_url: { url: 'ref:asset/bgm' }, role: 'reference_audio' },
      ],
    },
  };
  const [handle, failed] = await Promise.all([
    startPipeline(h.client, definition, { taskQueue: h.taskQueue }),
    startPipeline(h.client, failing, { taskQueue: h.taskQueue }),
  ]);
  workflowId = handle.workflowId;
  failedId = failed.workflowId;
  [result] = await Promise.all([handle.result(), failed.result().catch(() => undefined)]);
  failedHistory = await rawHistory(failedId);
  histories = [await rawHistory(workflowId), failedHistory];
});

afterAll(() => h?.close());

test('the pipeline ran through every stage, with the prompt', () => {
  expect(result.erase?.videoUrl).toMatch(/^https?:\/\//);
  const created = h.emulator.inspect().generationTasks;
  expect(JSON.stringify(created)).toContain(PROMPT);
});

test('the raw history holds no prompt and no URL: not in any payload, not in the JSON of any event', () => {
  const everything = histories.flatMap((hist) => [...texts(hist), JSON.stringify(hist)]);
  expect(everything.length).toBeGreaterThan(100);
  const needles = [PROMPT, 'http://', 'https://', 'media.example.com', result.erase!.videoUrl, REJECTED_URL];
  expect(everything.filter((t) => needles.some((n) => t.includes(n)))).toEqual([]);
  // Inputs and results are encrypted, under the key id of their metadata.
  const started = histories[0].events![0].workflowExecutionStartedEventAttributes!;
  const input = started.input!.payloads![0];
  expect(Buffer.from(input.metadata!.encoding).toString()).toBe('binary/encrypted');
  expect(Buffer.from(input.metadata!['encryption-key-id']).toString()).toBe('kid1');
});

test('a failed pipeline: every failure message and stack in its raw history is ciphertext', () => {
  const events = failedHistory.events ?? [];
  expect(events.at(-1)?.workflowExecutionFailedEventAttributes).toBeTruthy();
  const found = failures(events);
  // The activity's (the vendor's answer), the pipeline's and its cause, the stage's.
  expect(found.length).toBeGreaterThanOrEqual(3);
  for (const f of found) {
    expect({ message: f.message, stackTrace: f.stackTrace }).toEqual({ message: 'Encoded failure', stackTrace: '' });
    expect(Buffer.from(f.encodedAttributes!.metadata!.encoding).toString()).toBe('binary/encrypted');
  }
  // The types stay in clear: they are what clients and the workflow match on.
  expect(found.map((f) => f.applicationFailureInfo?.type)).toEqual(
    expect.arrayContaining(['PipelineFailed', 'RejectedError']),
  );
  const raw = [...texts(failedHistory), JSON.stringify(failedHistory)].join('\n');
  for (const clear of [VENDOR_SAYS, 'InvalidParameter', 'at async', '.ts:']) expect(raw).not.toContain(clear);
});

test('the CLI with the keys shows the failure with its cause chain and vendor code; without them, what to set', async () => {
  const env = { ...process.env, ...AFTER_ROTATION };
  const shown = await cli(['result', failedId], { env });
  expect(shown.code).toBe(1);
  const out = shown.stdout + shown.stderr;
  expect(out).toMatch(new RegExp(`pipeline ${failedId} failed: .*`));
  expect(out).toMatch(/caused by: RejectedError: .*InvalidParameter: URL must be a public/);
  const json = (await cli(['result', failedId, '--json'], { env })).json<{ error: { chain: string[] } }>();
  expect(json.error.chain.length).toBeGreaterThanOrEqual(3);
  expect(json.error.chain.join('\n')).toContain(VENDOR_SAYS);
  expect(json.error.chain.join('\n')).not.toContain('Encoded failure');
  const plain = await cli(['result', failedId], { env: { ...process.env, REELFLOW_CODEC_KEYS: '' } });
  expect(plain.code).toBe(1);
  expect(plain.stderr).toContain('payloads are encrypted: set REELFLOW_CODEC_KEYS');
  expect(plain.stdout + plain.stderr).not.toContain(VENDOR_SAYS);
});

test("the failed pipeline's history replays on the codec's bundle", async () => {
  const history = await h.client.workflow.getHandle(failedId).fetchHistory();
  await Worker.runReplayHistory(
    { workflowBundle: await testBundle({ dataConverter: converter }), dataConverter: converter },
    history,
  );
});

test('summaries and details, decrypted, carry neither the prompt nor a URL', async () => {
  const metadata = histories.flatMap((hist) =>
    (hist.events ?? []).flatMap((e) => [e.userMetadata?.summary, e.userMetadata?.details]).filter((p) => !!p),
  );
  expect(metadata.length).toBeGreaterThan(10);
  // SDK 1.24 runs user metadata through the codec too: in the raw history it is ciphertext.
  const encodings = new Set(metadata.map((p) => Buffer.from(p.metadata!.encoding).toString()));
  expect([...encodings]).toEqual(['binary/encrypted']);
  const shown = await Promise.all(metadata.map((p) => decodeText(p)));
  expect(shown.join('\n')).toContain('generation · create task');
  const current = await h.client.workflow
    .getHandle(workflowId)
    .query<{ currentDetails: string }>('__temporal_workflow_metadata');
  for (const text of [...shown, current.currentDetails]) {
    expect(text).not.toContain(PROMPT);
    expect(text).not.toMatch(/https?:|[?&](sig|signature|X-[A-Za-z-]+)=/i);
  }
});

test('the CLI with the codec environment shows the result; without it, it cannot read it', async () => {
  const withCodec = await cli(['result', workflowId, '--json'], { env: { ...process.env, ...AFTER_ROTATION } });
  expect(withCodec.code).toBe(0);
  expect(withCodec.json<{ result: PipelineResult }>().result.erase?.videoUrl).toBe(result.erase!.videoUrl);
  const plain = await cli(['result', workflowId], { env: { ...process.env, REELFLOW_CODEC_KEYS: '' } });
  expect(plain.code).toBe(1);
  expect(plain.stderr).toContain('payloads are encrypted: set REELFLOW_CODEC_KEYS');
  expect(plain.stdout).not.toContain(result.erase!.videoUrl);
});

test('codec-server decodes a history payload for the token holder, after rotation, and refuses without it', async () => {
  let stdout = '';
  const stop = new AbortController();
  const running = runCli(['codec-server', '--port', '0', '--json', '--cors-origin', 'http://localhost:8233'], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: () => true },
    stdin: Readable.from([]),
    env: { ...AFTER_ROTATION, REELFLOW_CODEC_SERVER_TOKEN: TOKEN },
    cwd: ROOT,
    signal: stop.signal,
  });
  try {
    const started = await (async () => {
      for (let i = 0; i < 100 && !stdout.includes('}'); i++) await new Promise((r) => setTimeout(r, 50));
      return JSON.parse(stdout) as { url: string; keyId: string };
    })();
    expect(started.keyId).toBe('kid2');
    const input = histories[0].events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    expect(Buffer.from(input.metadata!['encryption-key-id']).toString()).toBe('kid1');
    const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(Object.entries(input.metadata!).map(([k, v]) => [k, b64(v)])),
          data: b64(input.data!),
        },
      ],
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${started.url}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
        body,
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
    const ok = await post({ authorization: `Bearer ${TOKEN}`, origin: 'http://localhost:8233' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    const decoded = ((await ok.json()) as { payloads: { data: string }[] }).payloads[0];
    expect(Buffer.from(decoded.data, 'base64').toString()).toContain(PROMPT);
    // The Web UI's preflight: its origin only.
    const preflight = (origin: string) =>
      fetch(`${started.url}/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-namespace' },
      });
    const allowed = await preflight('http://localhost:8233');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-headers')).toContain('x-namespace');
    expect((await preflight('http://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    stop.abort();
    expect(await running).toBe(0);
  }
});
