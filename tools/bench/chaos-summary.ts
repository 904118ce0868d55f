/**
 * What a chaos run (bench/chaos-run.ts) found, as its report: the archive on disk, the
 * pipelines an injected fault met, the invariants (bench/chaos-invariants.ts) and the
 * counts. Read from the emulator's inspection API, the workflows' results and the
 * archive folder; never from logs.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FaultConfig } from '../../src/emulator/faults';
import type { InspectionSnapshot } from '../../src/emulator/inspection';
import { findMediaDir } from '../../src/emulator/media';
import type { RequestRecord } from '../../src/emulator/request-log';
import type { Controller } from './chaos-controller';
import { checkConcurrencyLimit, type ChaosTenants } from './chaos-gate';
import { attributeRecords, checkAll, type ArchivedFileOnDisk, type PipelineOutcome } from './chaos-invariants';
import type { Operator } from './chaos-operator';
import type { PipelineWatch } from './chaos-pipelines';
import { burstsOf, type ChaosSchedule, type PlannedPipeline } from './chaos-plan';
import type { ChaosOptions, ChaosReport } from './chaos-types';
import type { WorkerPool } from './chaos-stack';
import type { GateTimeline } from './gate-timeline';
import { natural429s, WindowCollector } from './rate-window';

/** What the run set up and what its parts recorded. */
export interface ChaosFindings {
  opts: ChaosOptions;
  startedAt: Date;
  durationMs: number;
  workDir: string;
  taskQueue: string;
  profiles: number;
  timeoutMs: number;
  faults: FaultConfig;
  plan: PlannedPipeline[];
  schedule: ChaosSchedule;
  /** The server the run started (absent with a shared one). */
  serverDescribed: string | undefined;
  snapshot: InspectionSnapshot;
  requests: RequestRecord[];
  pipelines: PipelineWatch;
  workers: WorkerPool;
  operator: Operator;
  controller: Controller;
  /** The tenants the pipelines ran as and their gates' holdings (chaos-gate.ts). */
  gate?: { tenants: ChaosTenants; timelines: GateTimeline[] };
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

/** Each archived path the results name: its file's sha256 and its sidecar's, when present. */
async function archivedFiles(outcomes: Iterable<PipelineOutcome>): Promise<Map<string, ArchivedFileOnDisk>> {
  const files = new Map<string, ArchivedFileOnDisk>();
  for (const o of outcomes) {
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
  return files;
}

/** The names and contents every pipeline's archive should hold: the emulator's media. */
function expectedArchive() {
  const mediaDir = findMediaDir();
  const sha256Of = (file: string) =>
    createHash('sha256')
      .update(readFileSync(path.join(mediaDir, file)))
      .digest('hex');
  return {
    names: ['generated', 'erased'],
    sha256: { generated: sha256Of('generated.mp4'), erased: sha256Of('erased.mp4') },
  };
}

/**
 * Pipelines that met an injected fault, by tag (a lower bound: a fault before a create's
 * handler carries no id to tie it to a pipeline).
 */
function pipelinesHit(plan: PlannedPipeline[], snapshot: InspectionSnapshot, requests: RequestRecord[]): Set<string> {
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
  return hit;
}

function faultsOf(f: ChaosFindings): ChaosReport['faults'] {
  const injectedByKind = f.snapshot.counters.faultsInjected;
  return {
    config: f.faults,
    injectedByKind,
    injectedByEndpoint: f.snapshot.counters.faultsByEndpoint,
    total: Object.values(injectedByKind).reduce((a, b) => a + b, 0),
    bursts: burstsOf(f.faults),
    pipelinesHit: pipelinesHit(f.plan, f.snapshot, f.requests).size,
  };
}

function pipelineCounts(f: ChaosFindings, outcomeList: PipelineOutcome[]): ChaosReport['pipelines'] {
  const byState: Record<string, number> = {};
  for (const o of outcomeList) byState[o.state] = (byState[o.state] ?? 0) + 1;
  const vendorTasks: Record<string, number> = {};
  for (const r of attributeRecords(f.snapshot)) vendorTasks[r.kind] = (vendorTasks[r.kind] ?? 0) + 1;
  const durations = outcomeList.filter((o) => o.durationMs !== undefined).map((o) => o.durationMs!);
  const startAtMs = f.schedule.startAtMs;
  return {
    started: f.pipelines.handles.size,
    arrivals: { atOnce: startAtMs.filter((t) => t === 0).length, overMs: Math.max(...startAtMs) },
    byState,
    expectedFailures: f.plan.filter((p) => p.expect.state === 'failed').length,
    durationMs: { p50: percentile(durations, 50), p95: percentile(durations, 95), max: Math.max(0, ...durations) },
    vendorTasks,
  };
}

function operatorOf({ operator }: ChaosFindings): ChaosReport['operator'] {
  const { decisions } = operator;
  return {
    decisions: {
      taskId: decisions.filter((d) => d.decision === 'taskId').length,
      resubmit: decisions.filter((d) => d.decision === 'resubmit').length,
    },
    failedAttempts: operator.failedDecisions,
    log: decisions,
  };
}

/** The run's report; `pass` when every invariant held. */
export async function chaosReport(f: ChaosFindings): Promise<ChaosReport> {
  const { opts, snapshot } = f;
  const files = await archivedFiles(f.pipelines.outcomes.values());
  const outcomeList = f.plan.map((p) => f.pipelines.outcomes.get(p.tag)!);
  const invariants = checkAll({
    plan: f.plan,
    outcomes: outcomeList,
    snapshot,
    files,
    expectedArchive: expectedArchive(),
    requests: f.requests,
  });
  if (f.gate) invariants.push(checkConcurrencyLimit(f.plan, snapshot, f.gate.tenants, f.gate.timelines));
  const faults = faultsOf(f);
  const getAssetWindows = new WindowCollector('assets.GetAsset');
  for (const r of f.requests) getAssetWindows.add(r);
  const pipelines = pipelineCounts(f, outcomeList);
  return {
    kind: 'reelflow-chaos',
    startedAt: f.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    durationMs: f.durationMs,
    machine: { cpus: os.availableParallelism(), node: process.version, platform: `${os.platform()} ${os.arch()}` },
    options: {
      pipelines: opts.pipelines,
      seed: opts.seed,
      kills: opts.kills,
      restartServer: opts.restartServer,
      workers: opts.workers,
      ambiguousPolicy: opts.ambiguousPolicy ?? 'ask',
      profiles: f.profiles,
      taskQueue: f.taskQueue,
      ownServer: !opts.temporal,
      ...(f.serverDescribed ? { temporalServer: f.serverDescribed } : {}),
      timeoutMs: f.timeoutMs,
    },
    workDir: f.workDir,
    faults,
    callbacks: snapshot.counters.callbacks,
    rateLimited429: snapshot.counters.rateLimited429,
    natural429: natural429s(snapshot.counters),
    getAssetBusiestWindow: getAssetWindows.byCaller(),
    vendorRequests: snapshot.counters.requests,
    kills: f.controller.kills,
    unexpectedWorkerExits: f.workers.unexpectedExits,
    restarts: f.controller.restarts,
    operator: operatorOf(f),
    pipelines,
    invariants,
    pass: invariants.every((i) => i.pass),
  };
}
