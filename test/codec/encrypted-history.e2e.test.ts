/**
 * With the payload codec on (real dev server, emulator, callbacks through the receiver):
 * a finished pipeline's raw history, fetched without the codec, holds no prompt and no
 * URL anywhere (payload bytes and the JSON of every event);
 * summaries and details carry neither even decrypted; the CLI with the codec's
 * environment still shows the result; `reelflow codec-server` decrypts a history payload
 * for whoever has the token, after the keys rotated.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { codecFromEnv, type EncryptionCodec } from '../../src/codec';
import { runCli } from '../../src/starters/cli';
import { startPipeline } from '../../src/starters/pipeline-client';
import type { PipelineResult } from '../../src/workflows/messages';
import { cli, ROOT } from '../starters/helpers';
import { fullDefinition, startHarness, type Harness } from '../workflows/harness';

type History = temporal.api.history.v1.IHistory;

const PROMPT = 'a confidential teaser for the spring launch, lit like dawn';
const KID1 = randomBytes(32).toString('base64');
const KID2 = randomBytes(32).toString('base64');
const BEFORE_ROTATION = { REELFLOW_CODEC_KEYS: `kid1:${KID1}` };
const AFTER_ROTATION = { REELFLOW_CODEC_KEYS: `kid1:${KID1},kid2:${KID2}`, REELFLOW_CODEC_KEY_ID: 'kid2' };
const TOKEN = 'codec-server-token-0123456789';

let h: Harness;
let codec: EncryptionCodec;
let workflowId: string;
let result: PipelineResult;
let histories: History[];

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

beforeAll(async () => {
  codec = codecFromEnv(BEFORE_ROTATION)!;
  h = await startHarness({ callbacks: true, dataConverter: { payloadCodecs: [codec] } });
  const base = fullDefinition();
  const generation = base.generation!;
  const definition = {
    ...base,
    options: { allowPrivateHosts: true },
    generation: { ...generation, content: [{ type: 'text' as const, text: PROMPT }, ...generation.content.slice(1)] },
  };
  const handle = await startPipeline(h.client, definition, { taskQueue: h.taskQueue });
  workflowId = handle.workflowId;
  result = await handle.result();
  histories = [await rawHistory(workflowId)];
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
  const needles = [PROMPT, 'http://', 'https://', 'media.example.com', result.erase!.videoUrl];
  expect(everything.filter((t) => needles.some((n) => t.includes(n)))).toEqual([]);
  // Inputs and results are encrypted, under the key id of their metadata.
  const started = histories[0].events![0].workflowExecutionStartedEventAttributes!;
  const input = started.input!.payloads![0];
  expect(Buffer.from(input.metadata!.encoding).toString()).toBe('binary/encrypted');
  expect(Buffer.from(input.metadata!['encryption-key-id']).toString()).toBe('kid1');
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
