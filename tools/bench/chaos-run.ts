/**
 * One chaos run, reusable by `npm run chaos` (bench/chaos.ts) and the quick variant in
 * `npm test` (test/chaos/quick.test.ts):
 *
 * - a Temporal dev server of its own (SQLite file in the run's folder), or a given one;
 * - the vendor emulator as a process, with the fault mix and a seed;
 * - the callback receiver as a process of its own (a stable address, as behind a load
 *   balancer: a killed worker must not take the URL its tasks will call back with);
 * - W worker processes (dist/workers/main.js), all serving every credential profile;
 * - N pipelines with every stage (one under the workflow id of an earlier one), run as
 *   three tenants with budgets, then a controller that, from a seeded schedule,
 *   SIGKILLs a random worker and starts a replacement, restarts the dev server once
 *   (same SQLite file), terminates a tenant's ledger and forges ledger messages
 *   (chaos-ledger-moves.ts), and acts as the OPERATOR for pipelines that
 *   wait on an ambiguous create: it looks the task up in the vendor's records by the
 *   child workflow's callback URL, and resolves with its id, or `resubmit` when none
 *   exists;
 * - then the invariants (bench/chaos-invariants.ts), from the emulator's inspection
 *   API, the workflows' results and the archive folder. Never from logs.
 *
 * The parts: chaos-stack.ts (what it starts, kept by chaos-children.ts), chaos-pipelines.ts
 * (start and watch), chaos-operator.ts, chaos-controller.ts (kills, restart, progress) and
 * chaos-summary.ts (the report); chaos-plan.ts decides all of it from the seed beforehand.
 *
 * Everything it starts is killed when it ends, also on errors and on process exit.
 * All traffic stays on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { codecDataConverter } from '../../src/codec';
import type { InspectionSnapshot } from '../../src/emulator/inspection';
import { repoRoot } from '../devstack/temporal-cli';
import { Children } from './chaos-children';
import { Controller, RequestLog } from './chaos-controller';
import { chaosTenants, readTimelines } from './chaos-gate';
import { Operator } from './chaos-operator';
import { PipelineWatch } from './chaos-pipelines';
import { chaosFaults, estimatedRunMs, planPipelines, planSchedule, profileCount } from './chaos-plan';
import {
  buildWorkflowBundle,
  chaosTemporal,
  chaosWorkerEnv,
  startChaosEmulator,
  startReceiver,
  temporalEnvOf,
  WorkerPool,
} from './chaos-stack';
import { chaosReport } from './chaos-summary';
import { checkLedgers } from './chaos-ledger';
import { LedgerChaos } from './chaos-ledger-moves';
import { checkReplays } from './chaos-replay';
import type { BenchServer } from './temporal-server';

import type { ChaosLedgerMoves, ChaosOptions, ChaosReport } from './chaos-types';
import type { PlannedPipeline } from './chaos-plan';
import { connectTemporal } from '../../src/config/temporal-connection';

export type { ChaosOptions, ChaosReport };

export const DIST_MISSING_HINT = 'run `npm run build` (npm test and npm run chaos compile first)';

export function distPaths(root = repoRoot()) {
  return {
    worker: path.join(root, 'dist', 'workers', 'main.js'),
    buildBundle: path.join(root, 'dist', 'workers', 'build-bundle.js'),
    emulator: path.join(root, 'dist', 'emulator', 'main.js'),
    receiver: path.join(root, 'dist', 'callbacks', 'main.js'),
  };
}

/** Throws, before anything starts, on a missing build or options that cannot run. */
function checkOptions(opts: ChaosOptions, dist: ReturnType<typeof distPaths>): void {
  for (const [what, file] of Object.entries(dist)) {
    if (!existsSync(file)) throw new Error(`chaos: ${file} (${what}) is missing: ${DIST_MISSING_HINT}`);
  }
  if (opts.restartServer && opts.temporal)
    throw new Error('chaos: --restart-server needs a dev server of its own (no shared server)');
  if (!Number.isInteger(opts.pipelines) || opts.pipelines < 1)
    throw new Error('chaos: pipelines must be a positive integer');
  if (!Number.isInteger(opts.workers) || opts.workers < 1) throw new Error('chaos: workers must be a positive integer');
}

/** The run's folders, names, fault mix, pipelines and schedule: all decided before anything starts. */
function planRun(opts: ChaosOptions) {
  const workDir = opts.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'reelflow-chaos-'));
  const logDir = path.join(workDir, 'logs');
  const archiveRoot = path.join(workDir, 'archive');
  mkdirSync(logDir, { recursive: true });
  mkdirSync(archiveRoot, { recursive: true });
  const runTag = `chaos${opts.seed}-${randomBytes(3).toString('hex')}`;
  const plan = planPipelines({ pipelines: opts.pipelines, runTag, ambiguousPolicy: opts.ambiguousPolicy ?? 'ask' });
  return {
    workDir,
    logDir,
    archiveRoot,
    startedAt: new Date(),
    taskQueue: `reelflow-${runTag}`,
    faults: opts.faults ?? chaosFaults({ seed: opts.seed, pipelines: opts.pipelines }),
    profiles: profileCount(opts.pipelines),
    timeoutMs: opts.timeoutMs ?? Math.max(10 * 60_000, estimatedRunMs(opts.pipelines) * 4),
    plan,
    schedule: planSchedule({
      seed: opts.seed,
      pipelines: opts.pipelines,
      kills: opts.kills,
      restartServer: opts.restartServer,
    }),
    callbackSecret: randomBytes(24).toString('hex'),
  };
}

/** The pipeline that reused an earlier one's workflow id, for the report. */
function reuseOf(plan: PlannedPipeline[], pipelines: PipelineWatch): Pick<ChaosLedgerMoves, 'reuse'> {
  const p = plan.find((x) => x.reuses !== undefined);
  if (!p) return {};
  const runOf = (tag: string) => pipelines.chains.get(tag)?.firstRunId ?? 'not started';
  return {
    reuse: { workflowId: p.workflowId, first: `${p.reuses!} ${runOf(p.reuses!)}`, second: `${p.tag} ${runOf(p.tag)}` },
  };
}

/** The money invariants (docs/benchmarks.md, "Chaos run (`npm run chaos`)") and the replay check, added to the report. */
async function addLedgerChecks(
  report: ChaosReport,
  a: {
    client: Client;
    plan: PlannedPipeline[];
    snapshot: InspectionSnapshot;
    tenants: string[];
    ledger: LedgerChaos;
    pipelines: PipelineWatch;
    taskQueue: string;
    log: (line: string) => void;
  },
): Promise<void> {
  const { moves } = a.ledger;
  const money = await checkLedgers({
    client: a.client,
    plan: a.plan,
    snapshot: a.snapshot,
    tenants: a.tenants,
    moves,
    chains: a.pipelines.chains,
    log: a.log,
  });
  const terminated = moves.terminated ? [{ workflowId: moves.terminated.ledgerId, runId: moves.terminated.runId }] : [];
  report.ledger = { ...moves, ...reuseOf(a.plan, a.pipelines) };
  for (const extra of [...money, await checkReplays(a.client, a.taskQueue, terminated)]) {
    report.invariants.push(extra);
    report.pass &&= extra.pass;
  }
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log ?? ((line: string) => console.log(line));
  const dist = distPaths(repoRoot());
  checkOptions(opts, dist);
  const run = planRun(opts);
  const { plan, schedule, taskQueue, timeoutMs } = run;
  const children = new Children(run.logDir);
  let server: BenchServer | undefined;
  let connection: Connection | undefined;
  let workers: WorkerPool | undefined;
  try {
    const temporal = await chaosTemporal(opts.temporal, opts.temporalKind, run.workDir, children, log);
    server = temporal.server;
    const emulator = await startChaosEmulator(children, dist.emulator, { ...run, seed: opts.seed }, log);
    const temporalEnv = temporalEnvOf(temporal);
    const receiverUrl = await startReceiver(children, dist.receiver, temporalEnv, run.callbackSecret, log);
    await buildWorkflowBundle(children, dist.buildBundle, run.logDir);
    const tenants = chaosTenants(taskQueue, run.workDir, plan);
    const env = {
      ...chaosWorkerEnv({ ...run, temporalEnv, emulatorUrl: emulator.url, receiverUrl }),
      REELFLOW_TENANTS_FILE: tenants.file,
    };
    workers = new WorkerPool(children, dist.worker, env, log);
    await workers.startPolling(opts.workers);
    log(`chaos: ${opts.workers} worker process(es) polling ${taskQueue}`);

    connection = await connectTemporal({ address: temporal.address });
    const dataConverter = codecDataConverter(process.env);
    const client = new Client({
      connection,
      namespace: temporal.namespace,
      ...(dataConverter ? { dataConverter } : {}),
    });
    const t0 = Date.now();
    workers.t0 = t0;
    const pipelines = new PipelineWatch(client, taskQueue, plan, t0, log);
    log(
      `chaos: starting ${plan.length} pipelines, ${schedule.startAtMs.filter((t) => t === 0).length} at once, the rest over ` +
        `${Math.round(Math.max(...schedule.startAtMs) / 1000)} s (timeout ${Math.round(timeoutMs / 1000)} s)`,
    );
    const watchers = pipelines.watchAll(schedule.startAtMs);
    const operator = new Operator(client, taskQueue, pipelines, emulator.api, t0, log);
    const requestLog = new RequestLog(emulator.api);
    const ledger = new LedgerChaos({ client, taskQueue, tenants: tenants.ids, schedule: schedule.ledger, log });
    const parts = { schedule, killsAsked: opts.kills, timeoutMs, t0, workers, server, children };
    const controller = new Controller({ ...parts, pipelines, operator, requestLog, ledger, log });
    await Promise.all([controller.loop(), operator.loop(), watchers]);
    pipelines.abort.abort();
    const durationMs = Date.now() - t0;
    await requestLog.collect();

    await pipelines.readFinalStatuses();
    const snapshot = await emulator.api<InspectionSnapshot>('state');
    const gate = { tenants, timelines: await readTimelines(client, tenants) };
    const report = await chaosReport({
      gate,
      ...run,
      opts,
      durationMs,
      serverDescribed: server?.described,
      snapshot,
      requests: requestLog.requests,
      pipelines,
      workers,
      operator,
      controller,
    });
    await addLedgerChecks(report, { client, plan, snapshot, tenants: tenants.ids, ledger, pipelines, taskQueue, log });
    if (opts.temporal) await pipelines.terminateUnfinished();
    return report;
  } finally {
    if (workers) workers.stopping = true;
    await connection?.close().catch(() => undefined);
    children.killAll();
    await server?.stop().catch(() => undefined);
    children.dispose();
  }
}
