/**
 * One chaos run, reusable by `npm run chaos` (bench/chaos.ts) and the quick variant in
 * `npm test` (test/chaos/quick.test.ts):
 *
 * - a Temporal dev server of its own (SQLite file in the run's folder), or a given one;
 * - the vendor emulator as a process, with the fault mix and a seed;
 * - the callback receiver as a process of its own (a stable address, as behind a load
 *   balancer: a killed worker must not take the URL its tasks will call back with);
 * - W worker processes (dist/workers/main.js), all serving every credential profile;
 * - N pipelines with every stage, then a controller that, from a seeded schedule,
 *   SIGKILLs a random worker and starts a replacement, restarts the dev server once
 *   (same SQLite file), and acts as the OPERATOR for pipelines that
 *   wait on an ambiguous create: it looks the task up in the vendor's records by the
 *   child workflow's callback URL, and resolves with its id, or `resubmit` when none
 *   exists;
 * - then the invariants (bench/chaos-invariants.ts), from the emulator's inspection
 *   API, the workflows' results and the archive folder. Never from logs.
 *
 * Everything it starts is killed when it ends, also on errors and on process exit.
 * All traffic stays on 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { EventEmitter, setMaxListeners } from 'node:events';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client, Connection, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/common';
import { codecDataConverter, codecEnv } from '../../src/codec';
import { repoRoot } from '../devstack/temporal-cli';
import type { FaultConfig } from '../../src/emulator/faults';
import type { InspectionSnapshot } from '../../src/emulator/inspection';
import { findMediaDir } from '../../src/emulator/media';
import type { RequestRecord } from '../../src/emulator/request-log';
import {
  resolveCreateUpdate,
  statusQuery,
  type CreateDecision,
  type PipelineInput,
  type PipelineResult,
  type PipelineStatus,
} from '../../src/contract/messages';
import {
  accessTokenOf,
  burstsOf,
  CHAOS_API_KEY,
  chaosFaults,
  CLIENT_HEADERS_TIMEOUT_MS,
  estimatedRunMs,
  planPipelines,
  planSchedule,
  profileCount,
  profileName,
  type PlannedPipeline,
} from './chaos-plan';
import {
  attributeRecords,
  checkAll,
  type ArchivedFileOnDisk,
  type InvariantResult,
  type PipelineOutcome,
} from './chaos-invariants';
import { natural429s, WindowCollector, type BusiestWindow } from './rate-window';
import { startBenchServer, type BenchServer, type TemporalKind } from './temporal-server';

export interface ChaosOptions {
  pipelines: number;
  seed: number;
  /** Worker SIGKILLs (each followed by a replacement). */
  kills: number;
  /** Restart the dev server once mid-run (needs a server of our own). */
  restartServer: boolean;
  /** Worker processes running at any time. */
  workers: number;
  /** The server it starts for itself: the dev server (default) or the real one on PostgreSQL. */
  temporalKind?: TemporalKind;
  /** Use this Temporal server instead of starting one (the quick test shares jest's). */
  temporal?: { address: string; namespace?: string };
  /** Folder for logs, the SQLite file and the archive. Default: a new temp folder. */
  workDir?: string;
  /** Give up on unfinished pipelines after this long. Default: from N. */
  timeoutMs?: number;
  /** Policy of ambiguous review/generation/erase creates (see PlanOptions); default ask. */
  ambiguousPolicy?: 'ask' | 'resubmit';
  /** Fault mix; default chaosFaults(). */
  faults?: FaultConfig;
  log?: (line: string) => void;
}

type VideoPipeline = (input: PipelineInput) => Promise<PipelineResult>;

export interface KillRecord {
  atMs: number;
  worker: string;
  pid: number;
  replacement: string;
  /** Pipelines not yet terminal when it happened. */
  inFlight: number;
}

export interface RestartRecord {
  atMs: number;
  /** From stop to serving again. */
  downMs: number;
  inFlight: number;
}

export interface OperatorDecision {
  atMs: number;
  workflowId: string;
  stage: string;
  step: string;
  attempt: number;
  decision: 'taskId' | 'resubmit';
  taskId?: string;
  /** Tasks the search found for this step that the pipeline did not know about. */
  found: number;
}

export interface ChaosReport {
  kind: 'reelflow-chaos';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  machine: { cpus: number; node: string; platform: string };
  options: {
    pipelines: number;
    seed: number;
    kills: number;
    restartServer: boolean;
    workers: number;
    ambiguousPolicy: 'ask' | 'resubmit';
    profiles: number;
    taskQueue: string;
    ownServer: boolean;
    /** The server it started (absent with a shared one). */
    temporalServer?: string;
    timeoutMs: number;
  };
  workDir: string;
  faults: {
    config: FaultConfig;
    injectedByKind: Record<string, number>;
    injectedByEndpoint: Record<string, Record<string, number>>;
    total: number;
    /** Consecutive 429s the config holds: endpoint → after how many calls, how many. */
    bursts: Record<string, { after: number; size: number }>;
    /** Pipelines tied to at least one injected fault (a lower bound; see the report). */
    pipelinesHit: number;
  };
  callbacks: InspectionSnapshot['counters']['callbacks'];
  rateLimited429: Record<string, number>;
  /** Of those, the ones no fault injected (the vendor's own limits). */
  natural429: Record<string, number>;
  /** Most GetAsset requests of one access token the emulator received within 1 s (sliding), per token label. */
  getAssetBusiestWindow: Record<string, BusiestWindow>;
  vendorRequests: number;
  kills: KillRecord[];
  unexpectedWorkerExits: { atMs: number; worker: string; code: number | null; signal: string | null }[];
  restarts: RestartRecord[];
  operator: { decisions: Record<'taskId' | 'resubmit', number>; failedAttempts: number; log: OperatorDecision[] };
  pipelines: {
    started: number;
    arrivals: { atOnce: number; overMs: number };
    byState: Record<string, number>;
    expectedFailures: number;
    durationMs: { p50: number; p95: number; max: number };
    vendorTasks: Record<string, number>;
  };
  invariants: InvariantResult[];
  pass: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Processes this run started: every one is killed when the run ends, however it ends. */
export class Children {
  private readonly procs = new Map<ChildProcess, EventEmitter>();
  readonly extraPids = new Set<number>();
  private readonly onExit = () => this.killAll();

  constructor(private readonly logDir: string) {
    process.on('exit', this.onExit);
  }

  /**
   * Starts `node script args`; stdout and stderr go, line by line, to <logDir>/<name>.log
   * (read for as long as the child lives: a pipe nobody drains would stall its writer).
   */
  node(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const file = createWriteStream(path.join(this.logDir, `${name}.log`), { flags: 'a' });
    const lines = new EventEmitter();
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        file.write(`${line}\n`);
        lines.emit('line', line);
      });
    }
    child.once('exit', () => {
      this.procs.delete(child);
      setTimeout(() => file.end(), 100);
    });
    this.procs.set(child, lines);
    return child;
  }

  /** Resolves with the first line of `child` matching `pattern`. */
  waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray> {
    const lines = this.procs.get(child);
    if (!lines) return Promise.reject(new Error(`${what} is not running`));
    return new Promise((resolve, reject) => {
      const onLine = (line: string) => {
        const m = pattern.exec(line);
        if (m) done(null, m);
      };
      const onExit = (code: number | null) => done(new Error(`${what} exited (code ${code}) before it was ready`));
      const timer = setTimeout(() => done(new Error(`${what}: not ready within ${timeoutMs} ms`)), timeoutMs);
      const done = (err: Error | null, m?: RegExpExecArray) => {
        clearTimeout(timer);
        lines.off('line', onLine);
        child.off('exit', onExit);
        if (err) reject(err);
        else resolve(m!);
      };
      lines.on('line', onLine);
      child.once('exit', onExit);
    });
  }

  killAll(): void {
    for (const child of this.procs.keys()) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    for (const pid of this.extraPids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  dispose(): void {
    this.killAll();
    process.off('exit', this.onExit);
  }
}

function innermostMessage(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && (e as { cause?: unknown }).cause instanceof Error) e = (e as { cause: Error }).cause;
  return e instanceof Error ? e.message : String(e);
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function sha256File(file: string): Promise<string | undefined> {
  try {
    return createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  } catch {
    return undefined;
  }
}

export const DIST_MISSING_HINT = 'run `npm run build` (npm test and npm run chaos compile first)';

export function distPaths(root = repoRoot()) {
  return {
    worker: path.join(root, 'dist', 'workers', 'main.js'),
    buildBundle: path.join(root, 'dist', 'workers', 'build-bundle.js'),
    emulator: path.join(root, 'dist', 'emulator', 'main.js'),
    receiver: path.join(root, 'dist', 'callbacks', 'main.js'),
  };
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const root = repoRoot();
  const dist = distPaths(root);
  for (const [what, file] of Object.entries(dist)) {
    if (!existsSync(file)) throw new Error(`chaos: ${file} (${what}) is missing: ${DIST_MISSING_HINT}`);
  }
  if (opts.restartServer && opts.temporal)
    throw new Error('chaos: --restart-server needs a dev server of its own (no shared server)');
  if (!Number.isInteger(opts.pipelines) || opts.pipelines < 1)
    throw new Error('chaos: pipelines must be a positive integer');
  if (!Number.isInteger(opts.workers) || opts.workers < 1) throw new Error('chaos: workers must be a positive integer');

  const workDir = opts.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'reelflow-chaos-'));
  const logDir = path.join(workDir, 'logs');
  const archiveRoot = path.join(workDir, 'archive');
  mkdirSync(logDir, { recursive: true });
  mkdirSync(archiveRoot, { recursive: true });
  const children = new Children(logDir);
  const startedAt = new Date();
  const runTag = `chaos${opts.seed}-${randomBytes(3).toString('hex')}`;
  const taskQueue = `reelflow-${runTag}`;
  const faults = opts.faults ?? chaosFaults({ seed: opts.seed, pipelines: opts.pipelines });
  const profiles = profileCount(opts.pipelines);
  const timeoutMs = opts.timeoutMs ?? Math.max(10 * 60_000, estimatedRunMs(opts.pipelines) * 4);
  const plan = planPipelines({ pipelines: opts.pipelines, runTag, ambiguousPolicy: opts.ambiguousPolicy ?? 'ask' });
  const schedule = planSchedule({
    seed: opts.seed,
    pipelines: opts.pipelines,
    kills: opts.kills,
    restartServer: opts.restartServer,
  });
  const callbackSecret = randomBytes(24).toString('hex');

  let server: BenchServer | undefined;
  let connection: Connection | undefined;
  /** Set once the run is over: a worker exiting then is not replaced. */
  let stopping = false;
  try {
    // ---- Temporal
    let address: string;
    let namespace: string;
    if (opts.temporal) {
      address = opts.temporal.address;
      namespace = opts.temporal.namespace ?? 'default';
    } else {
      server = await startBenchServer({
        kind: opts.temporalKind ?? 'dev',
        dir: workDir,
        database: 'reelflow_chaos_temporal',
        log,
      });
      children.extraPids.add(server.pid);
      address = server.address;
      namespace = server.namespace;
      log(`chaos: ${server.described} at ${address}`);
    }

    // ---- the vendor emulator, with the fault mix and the seed
    const faultsFile = path.join(workDir, 'faults.json');
    writeFileSync(faultsFile, `${JSON.stringify(faults, null, 2)}\n`);
    const tokenArgs = Array.from({ length: profiles }, (_, i) => ['--access-token', accessTokenOf(i)]).flat();
    const emulator = children.node(
      'emulator',
      dist.emulator,
      [
        '--port',
        '0',
        '--profile',
        'fast',
        '--seed',
        String(opts.seed),
        '--faults',
        faultsFile,
        '--api-key',
        CHAOS_API_KEY,
        ...tokenArgs,
      ],
      { PATH: process.env.PATH },
    );
    const emuUrl = (await children.waitForLine(emulator, /listening on (http:\/\/\S+)/, 30_000, 'emulator'))[1];
    log(`chaos: emulator ${emuUrl}, seed ${opts.seed}, ${profiles} access token(s)`);
    const emu = async <T>(route: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${emuUrl}/__emulator/${route}`, {
        method: body === undefined ? 'GET' : 'POST',
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        signal: AbortSignal.timeout(30_000),
      });
      if (!res.ok) throw new Error(`emulator ${route}: HTTP ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };

    // ---- the callback receiver (standalone process)
    // REELFLOW_CODEC_KEYS in chaos's environment: the receiver, the workers and the client encrypt.
    const temporalEnv = {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      ...codecEnv(process.env),
    };
    const receiver = children.node('receiver', dist.receiver, [], {
      ...temporalEnv,
      REELFLOW_CALLBACK_SECRET: callbackSecret,
      REELFLOW_CALLBACK_PORT: '0',
      REELFLOW_CALLBACK_HOST: '127.0.0.1',
    });
    const receiverPort = (
      await children.waitForLine(receiver, /listening on [^:\s]+:(\d+)/, 60_000, 'callback receiver')
    )[1];
    const receiverUrl = `http://127.0.0.1:${receiverPort}`;
    log(`chaos: callback receiver ${receiverUrl}`);

    // ---- the workflow bundle (with the codec's keys set, its variant too), once, before the workers race to build it
    const codecFlag = process.env.REELFLOW_CODEC_KEYS ? ['--codec'] : [];
    const bundler = children.node('bundle', dist.buildBundle, ['--if-stale', ...codecFlag], { PATH: process.env.PATH });
    const bundled = await new Promise<number | null>((resolve) => bundler.once('exit', resolve));
    if (bundled !== 0) throw new Error(`chaos: building the workflow bundle failed (see ${logDir}/bundle.log)`);

    // ---- workers
    const workerEnv: NodeJS.ProcessEnv = {
      ...temporalEnv,
      VENDOR_BASE_URL: emuUrl,
      VENDOR_IDENTITY_URL: emuUrl,
      VENDOR_CONNECT_TIMEOUT_MS: '3000',
      VENDOR_HEADERS_TIMEOUT_MS: String(CLIENT_HEADERS_TIMEOUT_MS),
      VENDOR_BODY_TIMEOUT_MS: String(CLIENT_HEADERS_TIMEOUT_MS),
      REELFLOW_TASK_QUEUE: taskQueue,
      REELFLOW_PROFILES: Array.from({ length: profiles }, (_, i) => profileName(i)).join(','),
      REELFLOW_ARCHIVE_DIR: archiveRoot,
      REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves media on 127.0.0.1
      REELFLOW_CALLBACK_BASE_URL: receiverUrl,
      REELFLOW_CALLBACK_SECRET: callbackSecret,
    };
    for (let i = 0; i < profiles; i++) {
      workerEnv[`REELFLOW_PROFILE_${profileName(i).toUpperCase()}_API_KEY`] = CHAOS_API_KEY;
      workerEnv[`REELFLOW_PROFILE_${profileName(i).toUpperCase()}_ACCESS_TOKEN`] = accessTokenOf(i);
    }
    let workerSeq = 0;
    const killedByUs = new Set<ChildProcess>();
    const alive: { name: string; proc: ChildProcess }[] = [];
    const unexpectedWorkerExits: ChaosReport['unexpectedWorkerExits'] = [];
    let t0 = Date.now();
    const startWorker = (): { name: string; proc: ChildProcess } => {
      const name = `worker-${++workerSeq}`;
      const proc = children.node(name, dist.worker, [], workerEnv);
      const entry = { name, proc };
      alive.push(entry);
      proc.once('exit', (code, signal) => {
        const i = alive.indexOf(entry);
        if (i >= 0) alive.splice(i, 1);
        if (stopping || killedByUs.has(proc)) return;
        unexpectedWorkerExits.push({ atMs: Date.now() - t0, worker: name, code, signal });
        log(`chaos: ${name} exited by itself (code ${code}, signal ${signal}); starting another`);
        startWorker();
      });
      return entry;
    };
    const first = Array.from({ length: opts.workers }, () => startWorker());
    await Promise.all(first.map((w) => children.waitForLine(w.proc, /polling /, 120_000, w.name)));
    log(`chaos: ${opts.workers} worker process(es) polling ${taskQueue}`);

    // ---- Temporal client and the pipelines
    connection = await Connection.connect({ address });
    const dataConverter = codecDataConverter(process.env);
    const client = new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}) });
    const retrying = async <T>(what: string, fn: () => Promise<T>, deadline = Date.now() + 120_000): Promise<T> => {
      for (;;) {
        try {
          return await client.withDeadline(Date.now() + 20_000, fn);
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`${what}: ${innermostMessage(err)}`);
          await sleep(1_000);
        }
      }
    };

    t0 = Date.now();
    const handles = new Map<string, WorkflowHandle<VideoPipeline>>();
    const outcomes = new Map<string, PipelineOutcome>();
    const abort = new AbortController();
    setMaxListeners(plan.length + 50, abort.signal); // one listener per watched pipeline
    log(
      `chaos: starting ${plan.length} pipelines, ${schedule.startAtMs.filter((t) => t === 0).length} at once, the rest over ` +
        `${Math.round(Math.max(...schedule.startAtMs) / 1000)} s (timeout ${Math.round(timeoutMs / 1000)} s)`,
    );
    /** Starts pipeline p at its planned time, then waits for its end. */
    const startAndWatch = async (p: PlannedPipeline, startAtMs: number): Promise<void> => {
      const base = { index: p.index, tag: p.tag, workflowId: p.workflowId };
      const { workflowId, definition } = p;
      const wait = t0 + startAtMs - Date.now();
      if (wait > 0) await sleep(wait);
      const startedAt = Date.now();
      let handle: WorkflowHandle<VideoPipeline>;
      try {
        handle = await retrying(`start ${workflowId}`, () =>
          client.workflow
            .start<VideoPipeline>('videoPipeline', { taskQueue, workflowId, args: [{ definition }] })
            // A retry after a start whose answer was lost: the pipeline runs already.
            .catch((err: unknown) => {
              if (err instanceof WorkflowExecutionAlreadyStartedError)
                return client.workflow.getHandle<VideoPipeline>(workflowId);
              throw err;
            }),
        );
      } catch (err) {
        log(`chaos: could not start ${workflowId}: ${innermostMessage(err)}`);
        outcomes.set(workflowId, { ...base, state: 'not-finished', error: `not started: ${innermostMessage(err)}` });
        return;
      }
      handles.set(workflowId, handle);
      while (!abort.signal.aborted) {
        try {
          const result = await client.withAbortSignal(abort.signal, () => handle.result());
          outcomes.set(workflowId, { ...base, state: 'completed', result, durationMs: Date.now() - startedAt });
          return;
        } catch (err) {
          if (err instanceof WorkflowFailedError) {
            const c = err.cause;
            const state =
              c instanceof TerminatedFailure
                ? 'terminated'
                : c instanceof CancelledFailure
                  ? 'cancelled'
                  : c instanceof TimeoutFailure
                    ? 'timed-out'
                    : 'failed';
            outcomes.set(workflowId, {
              ...base,
              state,
              error: innermostMessage(err),
              durationMs: Date.now() - startedAt,
            });
            return;
          }
          if (abort.signal.aborted) break;
          await sleep(1_000); // the server is restarting, or the connection blinked
        }
      }
      outcomes.set(workflowId, { ...base, state: 'not-finished' });
    };
    const watchers = Promise.all(plan.map((p, i) => startAndWatch(p, schedule.startAtMs[i])));
    const allDone = () => outcomes.size === plan.length;
    /** Started and not yet terminal. */
    const inFlight = () => [...handles.keys()].filter((id) => !outcomes.has(id)).length;

    // ---- the operator
    const decisions: OperatorDecision[] = [];
    let failedDecisions = 0;
    const deciding = new Set<string>();
    const operatorLoop = async () => {
      while (!allDone() && !abort.signal.aborted) {
        await sleep(2_000);
        let waiting: string[] = [];
        try {
          const query = `TaskQueue = '${taskQueue}' AND ReelflowStatus = 'waiting-operator' AND ExecutionStatus = 'Running'`;
          for await (const wf of client.workflow.list({ query }))
            if (!deciding.has(wf.workflowId)) waiting.push(wf.workflowId);
        } catch {
          continue; // server restarting
        }
        waiting = waiting.filter((id) => handles.has(id));
        if (waiting.length === 0) continue;
        let state: InspectionSnapshot;
        try {
          state = await emu<InspectionSnapshot>('state');
        } catch {
          continue;
        }
        for (const workflowId of waiting) {
          deciding.add(workflowId);
          void decide(workflowId, state).finally(() => deciding.delete(workflowId));
        }
      }
    };
    const decide = async (workflowId: string, state: InspectionSnapshot): Promise<void> => {
      const handle = handles.get(workflowId)!;
      let status: PipelineStatus;
      try {
        status = await client.withDeadline(Date.now() + 15_000, () => handle.query(statusQuery));
      } catch {
        return;
      }
      const w = status.waiting;
      if (!w) return;
      // What an operator does in the vendor console: find the tasks this step created.
      const prefix = `/callbacks/${encodeURIComponent(w.workflowId)}/${encodeURIComponent(w.step)}/`;
      const tasks: { id: string; url?: string }[] =
        w.stage === 'review'
          ? state.reviewTasks.map((t) => ({ id: t.taskId, url: t.callbackUrl }))
          : w.stage === 'generation'
            ? state.generationTasks.map((t) => ({ id: t.id, url: t.callbackUrl }))
            : w.stage === 'erase'
              ? state.eraseTasks.map((t) => ({ id: t.taskId, url: t.callbackUrl }))
              : [];
      const known = new Set(status.vendorTasks.map((t) => t.id));
      const found = tasks.filter((t) => t.url?.includes(prefix) && !known.has(t.id));
      const exact = found.find((t) => t.url!.includes(`${prefix}${w.attempt}/`)) ?? found[0];
      const decision: CreateDecision = exact ? { taskId: exact.id } : { resubmit: true };
      try {
        await client.withDeadline(Date.now() + 30_000, () =>
          handle.executeUpdate(resolveCreateUpdate, { args: [{ step: w.step, decision }] }),
        );
      } catch (err) {
        failedDecisions += 1;
        log(`chaos: operator decision for ${workflowId} not taken (${innermostMessage(err)}); will look again`);
        return;
      }
      const record: OperatorDecision = {
        atMs: Date.now() - t0,
        workflowId,
        stage: w.stage,
        step: w.step,
        attempt: w.attempt,
        decision: exact ? 'taskId' : 'resubmit',
        ...(exact ? { taskId: exact.id } : {}),
        found: found.length,
      };
      decisions.push(record);
      log(
        `chaos: operator resolved ${workflowId} ${w.step}#${w.attempt}: ${exact ? `task ${exact.id}` : 'resubmit (no task found)'}`,
      );
    };

    // ---- request log collector (the emulator keeps only the last 5,000)
    const requests: RequestRecord[] = [];
    let lastSeq = 0;
    const collect = async () => {
      try {
        const { requests: batch } = await emu<{ requests: RequestRecord[] }>(`requests?since=${lastSeq}`);
        for (const r of batch) requests.push(r);
        if (batch.length) lastSeq = batch[batch.length - 1].seq;
      } catch {
        // next time
      }
    };

    // ---- the controller: kills, the restart; progress lines
    const kills: KillRecord[] = [];
    const restarts: RestartRecord[] = [];
    const controllerLoop = async () => {
      const pendingKills = [...schedule.kills];
      let restartAt = schedule.restartAtMs;
      let lastProgress = 0;
      let lastCollect = 0;
      while (!allDone() && !abort.signal.aborted) {
        await sleep(250);
        const now = Date.now() - t0;
        if (now - lastCollect > 2_000) {
          lastCollect = now;
          await collect();
        }
        const kill = pendingKills[0];
        if (kill && now >= kill.atMs && alive.length > 0) {
          pendingKills.shift();
          const victim = alive[Math.floor(kill.workerPick * alive.length)];
          killedByUs.add(victim.proc);
          const exited = new Promise((r) => victim.proc.once('exit', r));
          victim.proc.kill('SIGKILL');
          await exited;
          const replacement = startWorker();
          kills.push({
            atMs: now,
            worker: victim.name,
            pid: victim.proc.pid ?? -1,
            replacement: replacement.name,
            inFlight: inFlight(),
          });
          log(
            `chaos: t=${(now / 1000).toFixed(1)}s SIGKILL ${victim.name} (pid ${victim.proc.pid}), ${inFlight()} pipelines in flight; started ${replacement.name}`,
          );
        }
        if (restartAt !== undefined && now >= restartAt && server) {
          restartAt = undefined;
          const before = inFlight();
          log(
            `chaos: t=${(now / 1000).toFixed(1)}s restarting the Temporal server (same database), ${before} pipelines in flight`,
          );
          const s0 = Date.now();
          await server.restart();
          children.extraPids.add(server.pid);
          restarts.push({ atMs: now, downMs: Date.now() - s0, inFlight: before });
          log(`chaos: Temporal server back after ${((Date.now() - s0) / 1000).toFixed(1)} s`);
        }
        if (now - lastProgress >= 10_000) {
          lastProgress = now;
          const done = [...outcomes.values()];
          log(
            `chaos: t=${Math.round(now / 1000)}s ${done.length}/${plan.length} finished ` +
              `(${done.filter((o) => o.state === 'completed').length} completed, ${done.filter((o) => o.state !== 'completed').length} other); ` +
              `kills ${kills.length}/${opts.kills}, restarts ${restarts.length}, operator decisions ${decisions.length}`,
          );
        }
        if (now > timeoutMs) {
          log(`chaos: timeout after ${Math.round(timeoutMs / 1000)} s with ${inFlight()} pipelines unfinished`);
          abort.abort();
        }
      }
    };

    await Promise.all([controllerLoop(), operatorLoop(), watchers]);
    abort.abort();
    const durationMs = Date.now() - t0;
    await collect();

    // ---- final statuses (failed pipelines report their task ids only through the status query)
    for (const o of outcomes.values()) {
      if (o.state === 'completed') continue;
      try {
        const handle = handles.get(o.workflowId);
        if (handle)
          o.status = await retrying(`status of ${o.workflowId}`, () => handle.query(statusQuery), Date.now() + 60_000);
      } catch (err) {
        log(`chaos: no final status for ${o.workflowId}: ${innermostMessage(err)}`);
      }
    }
    const snapshot = await emu<InspectionSnapshot>('state');

    // ---- the archive on disk
    const files = new Map<string, ArchivedFileOnDisk>();
    for (const o of outcomes.values()) {
      for (const a of o.result?.archived ?? []) {
        const sha256 = await sha256File(a.path);
        let sidecar: string | undefined;
        try {
          sidecar = readFileSync(`${a.path}.sha256`, 'utf8').trim().split(/\s+/)[0];
        } catch {
          sidecar = undefined;
        }
        files.set(a.path, { ...(sha256 ? { sha256 } : {}), ...(sidecar ? { sidecar } : {}) });
      }
    }
    const mediaDir = findMediaDir();
    const expectedArchive = {
      names: ['generated', 'erased'],
      sha256: {
        generated: createHash('sha256')
          .update(readFileSync(path.join(mediaDir, 'generated.mp4')))
          .digest('hex'),
        erased: createHash('sha256')
          .update(readFileSync(path.join(mediaDir, 'erased.mp4')))
          .digest('hex'),
      },
    };
    const outcomeList = plan.map((p) => outcomes.get(p.workflowId)!);
    const invariants = checkAll({ plan, outcomes: outcomeList, snapshot, files, expectedArchive });

    // ---- which pipelines met an injected fault (lower bound: a fault before a create's
    // handler carries no id to tie it to a pipeline)
    const tagOfWorkflow = new Map(plan.map((p) => [p.workflowId, p.tag]));
    const tagOfResource = new Map(attributeRecords(snapshot).map((r) => [r.id, r.tag]));
    const tagOfCallbackUrl = (url: string | undefined): string | undefined => {
      const m = url ? /\/callbacks\/([^/]+)\//.exec(url) : null;
      if (!m) return undefined;
      const wf = decodeURIComponent(m[1]).replace(/\.(review|assets|generation|erase)$/, '');
      return tagOfWorkflow.get(wf);
    };
    const hit = new Set<string>();
    for (const r of requests) {
      if (r.faults.length === 0) continue;
      const idInPath = /\/(?:task\/get|svc-tasks|api\/task|media\/(?:generated|erased|assets))\/([^/?.]+)/.exec(
        r.path,
      )?.[1];
      const tag =
        tagOfCallbackUrl(r.callbackUrl) ?? tagOfResource.get(r.resourceId ?? '') ?? tagOfResource.get(idInPath ?? '');
      if (tag) hit.add(tag);
    }
    for (const d of snapshot.callbacks) {
      if (d.outcome === 'dropped' || d.duplicate || d.delayedMs) {
        const tag = tagOfCallbackUrl(d.url) ?? tagOfResource.get(d.resourceId);
        if (tag) hit.add(tag);
      }
    }

    const getAssetWindows = new WindowCollector('assets.GetAsset');
    for (const r of requests) getAssetWindows.add(r);

    const byState: Record<string, number> = {};
    for (const o of outcomeList) byState[o.state] = (byState[o.state] ?? 0) + 1;
    const vendorTasks: Record<string, number> = {};
    for (const r of attributeRecords(snapshot)) vendorTasks[r.kind] = (vendorTasks[r.kind] ?? 0) + 1;
    const durations = outcomeList.filter((o) => o.durationMs !== undefined).map((o) => o.durationMs!);
    const injectedByKind = snapshot.counters.faultsInjected;
    const report: ChaosReport = {
      kind: 'reelflow-chaos',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      durationMs,
      machine: { cpus: os.availableParallelism(), node: process.version, platform: `${os.platform()} ${os.arch()}` },
      options: {
        pipelines: opts.pipelines,
        seed: opts.seed,
        kills: opts.kills,
        restartServer: opts.restartServer,
        workers: opts.workers,
        ambiguousPolicy: opts.ambiguousPolicy ?? 'ask',
        profiles,
        taskQueue,
        ownServer: !opts.temporal,
        ...(server ? { temporalServer: server.described } : {}),
        timeoutMs,
      },
      workDir,
      faults: {
        config: faults,
        injectedByKind,
        injectedByEndpoint: snapshot.counters.faultsByEndpoint,
        total: Object.values(injectedByKind).reduce((a, b) => a + b, 0),
        bursts: burstsOf(faults),
        pipelinesHit: hit.size,
      },
      callbacks: snapshot.counters.callbacks,
      rateLimited429: snapshot.counters.rateLimited429,
      natural429: natural429s(snapshot.counters),
      getAssetBusiestWindow: getAssetWindows.byCaller(),
      vendorRequests: snapshot.counters.requests,
      kills,
      unexpectedWorkerExits,
      restarts,
      operator: {
        decisions: {
          taskId: decisions.filter((d) => d.decision === 'taskId').length,
          resubmit: decisions.filter((d) => d.decision === 'resubmit').length,
        },
        failedAttempts: failedDecisions,
        log: decisions,
      },
      pipelines: {
        started: handles.size,
        arrivals: { atOnce: schedule.startAtMs.filter((t) => t === 0).length, overMs: Math.max(...schedule.startAtMs) },
        byState,
        expectedFailures: plan.filter((p) => p.expect.state === 'failed').length,
        durationMs: { p50: percentile(durations, 50), p95: percentile(durations, 95), max: Math.max(0, ...durations) },
        vendorTasks,
      },
      invariants,
      pass: invariants.every((i) => i.pass),
    };

    // A shared server keeps what it runs: leave nothing of ours running there.
    if (opts.temporal) {
      for (const o of outcomeList) {
        if (o.state === 'not-finished')
          await handles
            .get(o.workflowId)
            ?.terminate('chaos run ended')
            .catch(() => undefined);
      }
    }
    return report;
  } finally {
    stopping = true;
    await connection?.close().catch(() => undefined);
    children.killAll();
    await server?.stop().catch(() => undefined);
    children.dispose();
  }
}
