/**
 * Logs and traces of one pipeline, end to end: the real worker process
 * (dist/workers/main.js, with its callback receiver) and the real CLI start, with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a small OTLP/HTTP (JSON) receiver on loopback
 * in this test. The spans of the pipeline form one trace: the CLI's start, the workflow,
 * its activities and the vendor HTTP calls (method and route, no query, no secret); each
 * vendor callback is a trace of two spans (receiver's signal, workflow's handler). The
 * worker's stdout is JSON lines, the SDK's own among them, and carries no secret.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expectReplays, fullDefinition, startHarness, testCodecEnv, type Harness } from '../support/harness';
import { freePort, json, startServer } from '../support/http-server';
import { until } from '../support/poll';

const ROOT = path.resolve(__dirname, '../..');
const WORKER_MAIN = path.join(ROOT, 'dist/workers/main.js');
const CLI = path.join(ROOT, 'dist/starters/cli/main.js');
const API_KEY = 'sk-observe-test-api-key-0123456789';
const ACCESS_TOKEN = 'at-observe-test-access-token-0123456789';
const CALLBACK_SECRET = 'observe-test-callback-secret-0123456789';

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
}
interface Span extends OtlpSpan {
  service: string;
  attrs: Record<string, string | number | undefined>;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const attrsOf = (list: { key: string; value: OtlpValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? a.value.intValue]));

/** An OTLP/HTTP collector that keeps every span it is sent (the exporter's JSON encoding). */
async function startCollector() {
  const spans: Span[] = [];
  const server = await startServer((req, res) => {
    const doc = JSON.parse(req.body) as OtlpExport;
    for (const rs of doc.resourceSpans ?? []) {
      const service = String(attrsOf(rs.resource?.attributes)['service.name']);
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? []) spans.push({ ...s, service, attrs: attrsOf(s.attributes) });
    }
    json(200, {})(req, res);
  });
  return Object.assign(server, { spans });
}

describe('a pipeline with tracing on', () => {
  let h: Harness;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let worker: ChildProcess | undefined;
  let stdout = '';
  let stderr = '';

  beforeAll(async () => {
    for (const f of [WORKER_MAIN, CLI]) if (!existsSync(f)) throw new Error(`${f} missing: run \`npm test\``);
    collector = await startCollector();
    h = await startHarness({ inProcessWorkers: false, apiKey: API_KEY, accessToken: ACCESS_TOKEN });
  });
  afterAll(async () => {
    if (worker?.exitCode === null) worker.kill('SIGKILL');
    await h?.close();
    await collector?.close();
  });

  test('one trace: CLI start, workflow, activities, vendor calls; JSON logs without secrets', async () => {
    const callbackPort = await freePort();
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '200', // export soon after each span ends
    };
    const temporal = {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
      ...testCodecEnv(), // REELFLOW_TEST_CODEC=1: tracing and the codec together
    };
    worker = spawn(process.execPath, [WORKER_MAIN], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...temporal,
        ...otel,
        VENDOR_BASE_URL: h.emulator.url,
        VENDOR_IDENTITY_URL: h.emulator.url,
        REELFLOW_PROFILE_DEFAULT_API_KEY: API_KEY,
        REELFLOW_PROFILE_DEFAULT_ACCESS_TOKEN: ACCESS_TOKEN,
        REELFLOW_TASK_QUEUE: h.taskQueue,
        REELFLOW_ARCHIVE_DIR: h.archiveRoot,
        REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves media on 127.0.0.1
        REELFLOW_CALLBACK_BASE_URL: `http://127.0.0.1:${callbackPort}`,
        REELFLOW_CALLBACK_SECRET: CALLBACK_SECRET,
        REELFLOW_CALLBACK_PORT: String(callbackPort),
        REELFLOW_CALLBACK_HOST: '127.0.0.1',
        REELFLOW_LOG_LEVEL: 'debug',
      },
    });
    const exited = new Promise<number | null>((resolve) => worker!.on('exit', (code) => resolve(code)));
    worker.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await until('the worker to poll', () => /"msg":"polling /.test(stdout) || worker!.exitCode !== null, {
      timeoutMs: 180_000,
    });
    expect(worker.exitCode).toBeNull();

    // Started by the CLI, traced too: its span is the root of the pipeline's trace.
    const definition = fullDefinition({ options: { callbacks: true, allowPrivateHosts: true } });
    const file = path.join(h.archiveRoot, 'definition.json');
    writeFileSync(file, JSON.stringify(definition));
    // Not spawnSync: the collector runs on this process's event loop.
    const started = await promisify(execFile)(
      process.execPath,
      [CLI, 'start', file, '--task-queue', h.taskQueue, '--json'],
      {
        env: { ...temporal, ...otel },
        encoding: 'utf8',
      },
    );
    expect(started.stderr).toBe('');
    const { workflowId } = JSON.parse(started.stdout) as { workflowId: string };
    const handle = h.client.workflow.getHandle(workflowId);
    expect(await handle.result()).toMatchObject({ generation: { taskId: expect.any(String) } });
    // Recorded with the tracing interceptors, it replays without them: tracing can be turned off.
    await expectReplays(handle);

    // The workflow's span ends with the workflow; it then travels sink → batch → collector.
    await until('workflow span', () => collector.spans.some((s) => s.name === 'RunWorkflow:videoPipeline'));
    worker.kill('SIGTERM');
    expect(await exited).toBe(0);

    const spans = collector.spans;
    const root = spans.find((s) => s.name === 'StartWorkflow:videoPipeline');
    expect(root).toMatchObject({ service: 'reelflow-cli' });
    const traceId = root!.traceId;
    const mine = spans.filter((s) => s.traceId === traceId);
    // A vendor callback is a trace of its own: the receiver's signal → the workflow's handler.
    const others = spans.filter((s) => s.traceId !== traceId);
    const handled = others.filter((s) => s.name === 'HandleSignal:vendorCallback');
    expect(handled.length).toBeGreaterThan(0);
    for (const s of handled) {
      const parent = others.find((p) => p.spanId === s.parentSpanId);
      expect(parent).toMatchObject({ name: 'SignalWorkflow:vendorCallback', traceId: s.traceId });
    }
    expect(others.length).toBe(handled.length * 2); // nothing else of this run outside the trace
    const names = new Set(mine.map((s) => s.name));
    for (const name of [
      'RunWorkflow:videoPipeline',
      'StartActivity:generationCreate',
      'RunActivity:generationCreate',
      'RunActivity:getAsset',
    ])
      expect(names).toContain(name);
    expect(mine.find((s) => s.name === 'RunWorkflow:videoPipeline')!.service).toBe('reelflow-worker');

    const vendor = mine.filter((s) => s.attrs['reelflow.vendor.endpoint'] !== undefined);
    const routes = new Set(vendor.map((s) => s.name));
    for (const route of ['POST /v1/task/create', 'GET /v1/task/get/{id}', 'POST /api/asset-management'])
      expect(routes).toContain(route);
    const byId = new Map(mine.map((s) => [s.spanId, s]));
    for (const s of vendor) {
      expect(s.kind).toBe(3); // CLIENT
      expect(s.attrs['http.request.method']).toBe(s.name.split(' ')[0]);
      expect(s.attrs['url.template']).toBe(s.name.split(' ')[1]);
      expect(typeof s.attrs['http.response.status_code']).not.toBe('undefined');
      expect(byId.get(s.parentSpanId ?? '')?.name).toMatch(/^RunActivity:/);
    }

    const exported = collector.requests.map((r) => r.body).join('\n');
    expect(exported).not.toMatch(/asset-management\?|Action=/);
    for (const secret of [API_KEY, ACCESS_TOKEN, CALLBACK_SECRET]) expect(exported).not.toContain(secret);

    // Logs: one JSON object per line, the SDK's among them, no secret, no callback token.
    const lines = stdout.trim().split('\n');
    const parsed = lines.map(
      (l) => JSON.parse(l) as { level: string; time: string; msg: string; sdkComponent?: string },
    );
    for (const l of parsed)
      expect(l).toEqual(expect.objectContaining({ level: expect.any(String), msg: expect.any(String) }));
    expect(parsed.some((l) => l.sdkComponent === 'worker')).toBe(true);
    expect(parsed.some((l) => /^callback signalled: /.test(l.msg))).toBe(true);
    expect(stderr).toBe('');
    for (const secret of [API_KEY, ACCESS_TOKEN, CALLBACK_SECRET]) expect(stdout).not.toContain(secret);
    expect(stdout).not.toMatch(/\/callbacks\/[^"\s]*[0-9a-f]{32}/); // a callback URL's token
  }, 300_000);
});
