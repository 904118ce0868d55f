/**
 * What a chaos run (bench/chaos-run.ts) starts before its pipelines: the Temporal server
 * (its own, or a shared one), the vendor emulator with the fault mix and the seed, the
 * callback receiver as a process of its own, the workflow bundle, and the pool of worker
 * processes (dist/workers/main.js) that the controller kills and replaces.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { codecEnv } from '../../src/codec';
import type { FaultConfig } from '../../src/emulator/faults';
import type { Children } from './chaos-children';
import { accessTokenOf, CHAOS_API_KEY, CLIENT_HEADERS_TIMEOUT_MS, profileName } from './chaos-plan';
import { startBenchServer, type BenchServer, type TemporalKind } from './temporal-server';

type Log = (line: string) => void;

export interface ChaosTemporal {
  address: string;
  namespace: string;
  /** The server the run started for itself (absent with a shared one). */
  server?: BenchServer;
}

/** The given server, or one of the run's own in `workDir` (killed with the run's children). */
export async function chaosTemporal(
  given: { address: string; namespace?: string } | undefined,
  kind: TemporalKind | undefined,
  workDir: string,
  children: Children,
  log: Log,
): Promise<ChaosTemporal> {
  if (given) return { address: given.address, namespace: given.namespace ?? 'default' };
  const server = await startBenchServer({
    kind: kind ?? 'dev',
    dir: workDir,
    database: 'reelflow_chaos_temporal',
    log,
  });
  children.extraPids.add(server.pid);
  log(`chaos: ${server.described} at ${server.address}`);
  return { address: server.address, namespace: server.namespace, server };
}

/** The emulator's inspection and control API (/__emulator/<route>): GET, or POST `body`. */
export type EmulatorApi = <T>(route: string, body?: unknown) => Promise<T>;

/** The vendor emulator, with the fault mix (written to <workDir>/faults.json) and the seed. */
export async function startChaosEmulator(
  children: Children,
  script: string,
  o: { workDir: string; seed: number; faults: FaultConfig; profiles: number },
  log: Log,
): Promise<{ url: string; api: EmulatorApi }> {
  const faultsFile = path.join(o.workDir, 'faults.json');
  writeFileSync(faultsFile, `${JSON.stringify(o.faults, null, 2)}\n`);
  const tokenArgs = Array.from({ length: o.profiles }, (_, i) => ['--access-token', accessTokenOf(i)]).flat();
  const args = ['--port', '0', '--profile', 'fast', '--seed', String(o.seed), '--faults', faultsFile];
  const emulator = children.node('emulator', script, [...args, '--api-key', CHAOS_API_KEY, ...tokenArgs], {
    PATH: process.env.PATH,
  });
  const url = (await children.waitForLine(emulator, /listening on (http:\/\/\S+)/, 30_000, 'emulator'))[1];
  log(`chaos: emulator ${url}, seed ${o.seed}, ${o.profiles} access token(s)`);
  const api: EmulatorApi = async <T>(route: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}/__emulator/${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) throw new Error(`emulator ${route}: HTTP ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return { url, api };
}

/**
 * The Temporal part of every process's environment. REELFLOW_CODEC_KEYS in chaos's
 * environment: the receiver, the workers and the client encrypt.
 */
export function temporalEnvOf(t: ChaosTemporal): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    TEMPORAL_ADDRESS: t.address,
    TEMPORAL_NAMESPACE: t.namespace,
    ...codecEnv(process.env),
  };
}

/** The callback receiver as a process of its own (a stable address a killed worker does not take along); its URL. */
export async function startReceiver(
  children: Children,
  script: string,
  temporalEnv: NodeJS.ProcessEnv,
  callbackSecret: string,
  log: Log,
): Promise<string> {
  const receiver = children.node('receiver', script, [], {
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
  return receiverUrl;
}

/** The workflow bundle (with the codec's keys set, its variant too), once, before the workers race to build it. */
export async function buildWorkflowBundle(children: Children, script: string, logDir: string): Promise<void> {
  const codecFlag = process.env.REELFLOW_CODEC_KEYS ? ['--codec'] : [];
  const bundler = children.node('bundle', script, ['--if-stale', ...codecFlag], { PATH: process.env.PATH });
  const bundled = await new Promise<number | null>((resolve) => bundler.once('exit', resolve));
  if (bundled !== 0) throw new Error(`chaos: building the workflow bundle failed (see ${logDir}/bundle.log)`);
}

/** The workers' environment: every credential profile, the emulator as the vendor, callbacks to the receiver. */
export function chaosWorkerEnv(o: {
  temporalEnv: NodeJS.ProcessEnv;
  emulatorUrl: string;
  receiverUrl: string;
  callbackSecret: string;
  taskQueue: string;
  profiles: number;
  archiveRoot: string;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...o.temporalEnv,
    VENDOR_BASE_URL: o.emulatorUrl,
    VENDOR_IDENTITY_URL: o.emulatorUrl,
    VENDOR_CONNECT_TIMEOUT_MS: '3000',
    VENDOR_HEADERS_TIMEOUT_MS: String(CLIENT_HEADERS_TIMEOUT_MS),
    VENDOR_BODY_TIMEOUT_MS: String(CLIENT_HEADERS_TIMEOUT_MS),
    REELFLOW_TASK_QUEUE: o.taskQueue,
    REELFLOW_PROFILES: Array.from({ length: o.profiles }, (_, i) => profileName(i)).join(','),
    REELFLOW_ARCHIVE_DIR: o.archiveRoot,
    REELFLOW_ARCHIVE_ALLOW_PRIVATE: '1', // the emulator serves media on 127.0.0.1
    REELFLOW_CALLBACK_BASE_URL: o.receiverUrl,
    REELFLOW_CALLBACK_SECRET: o.callbackSecret,
  };
  for (let i = 0; i < o.profiles; i++) {
    env[`REELFLOW_PROFILE_${profileName(i).toUpperCase()}_API_KEY`] = CHAOS_API_KEY;
    env[`REELFLOW_PROFILE_${profileName(i).toUpperCase()}_ACCESS_TOKEN`] = accessTokenOf(i);
  }
  return env;
}

export interface RunningWorker {
  name: string;
  proc: ChildProcess;
}

export interface WorkerExit {
  atMs: number;
  worker: string;
  code: number | null;
  signal: string | null;
}

/** The worker processes: one that exits by itself is recorded and replaced; one killed on purpose is not. */
export class WorkerPool {
  readonly alive: RunningWorker[] = [];
  readonly unexpectedExits: WorkerExit[] = [];
  private readonly killedByUs = new Set<ChildProcess>();
  private seq = 0;
  /** Exits are timed from here; the run resets it when the pipelines start. */
  t0 = Date.now();
  /** Set once the run is over: a worker exiting then is not replaced. */
  stopping = false;

  constructor(
    private readonly children: Children,
    private readonly script: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: Log,
  ) {}

  start(): RunningWorker {
    const name = `worker-${++this.seq}`;
    const proc = this.children.node(name, this.script, [], this.env);
    const entry = { name, proc };
    this.alive.push(entry);
    proc.once('exit', (code, signal) => {
      const i = this.alive.indexOf(entry);
      if (i >= 0) this.alive.splice(i, 1);
      if (this.stopping || this.killedByUs.has(proc)) return;
      this.unexpectedExits.push({ atMs: Date.now() - this.t0, worker: name, code, signal });
      this.log(`chaos: ${name} exited by itself (code ${code}, signal ${signal}); starting another`);
      this.start();
    });
    return entry;
  }

  /** Starts `count` workers and waits until every one polls. */
  async startPolling(count: number): Promise<void> {
    const first = Array.from({ length: count }, () => this.start());
    await Promise.all(first.map((w) => this.children.waitForLine(w.proc, /polling /, 120_000, w.name)));
  }

  /** SIGKILLs the live worker `pick` (in [0, 1)) points at, waits for its exit, starts a replacement. */
  async killOne(pick: number): Promise<{ victim: RunningWorker; replacement: RunningWorker }> {
    const victim = this.alive[Math.floor(pick * this.alive.length)];
    this.killedByUs.add(victim.proc);
    const exited = new Promise((r) => victim.proc.once('exit', r));
    victim.proc.kill('SIGKILL');
    await exited;
    return { victim, replacement: this.start() };
  }
}
