/**
 * The bench's pass/fail targets (docs/benchmarks.md, "Results against the targets") and the
 * findings where a run misses one (pure). Targets by size: the "at 200" values hold up to 200
 * pipelines, the "at 1000" ones above.
 */
import { GETASSET_MAX_PER_SECOND } from '../../src/vendor-api/documented-values';
import { cpuPerPipeline, type PhaseResult } from './phase';

export interface Targets {
  historyEventsP50: number;
  workflowTasksP95: number;
  /** Worker(s) + Temporal server CPU seconds per pipeline. */
  cpuSecondsPerPipeline: number;
  /** Peak RSS of each worker process. */
  workerPeakRssMb: number;
  /** reelflow wall time ÷ the baseline's. */
  wallVsBaseline: number;
  /** Overhead p50 with callbacks, checked for runs of at most `overheadUpTo` pipelines. */
  overheadP50Ms: number;
  overheadUpTo: number;
  /** Busiest 1-s window of GetAsset at the vendor, per access token. */
  getAssetWindow: number;
  natural429: number;
}

export function targetsFor(pipelines: number): Targets {
  const small = pipelines <= 200;
  return {
    historyEventsP50: 100,
    workflowTasksP95: 30,
    cpuSecondsPerPipeline: 0.3,
    workerPeakRssMb: small ? 300 : 600,
    wallVsBaseline: small ? 1.3 : 2,
    overheadP50Ms: 1_200,
    overheadUpTo: 10,
    getAssetWindow: GETASSET_MAX_PER_SECOND,
    natural429: 0,
  };
}

const f2 = (v: number) => v.toFixed(2);

/** One line per target a reelflow run misses; `wallRatio` is reelflow ÷ baseline for its mode (null: no baseline). */
export function runFindings(r: PhaseResult, t: Targets, wallRatio: number | null): string[] {
  const mode = `callbacks ${r.callbacks ? 'on' : 'off'}`;
  const out: string[] = [];
  const miss = (what: string, got: string, target: string) => out.push(`${mode}: ${what} ${got} (target ${target})`);
  if (wallRatio !== null && wallRatio > t.wallVsBaseline)
    miss("reelflow's wall time ÷ the baseline's is", `${f2(wallRatio)}×`, `≤ ${t.wallVsBaseline}×`);
  if (r.historyEvents && r.historyEvents.p50 > t.historyEventsP50)
    miss('history events per pipeline p50', String(r.historyEvents.p50), `≤ ${t.historyEventsP50}`);
  if (r.workflowTasks && r.workflowTasks.p95 > t.workflowTasksP95)
    miss('workflow tasks per pipeline p95', String(r.workflowTasks.p95), `≤ ${t.workflowTasksP95}`);
  const cpu = cpuPerPipeline(r);
  if (cpu > t.cpuSecondsPerPipeline)
    miss('CPU per pipeline (workers + server)', `${f2(cpu)} s`, `≤ ${t.cpuSecondsPerPipeline} s`);
  for (const p of r.processes) {
    if (p.peakRssMb > t.workerPeakRssMb)
      miss(`${p.name} peak RSS`, `${p.peakRssMb.toFixed(0)} MB`, `≤ ${t.workerPeakRssMb} MB`);
  }
  if (r.callbacks && r.pipelines <= t.overheadUpTo && r.overheadMs.p50 > t.overheadP50Ms)
    miss('overhead per pipeline p50', `${f2(r.overheadMs.p50 / 1000)} s`, `≤ ${t.overheadP50Ms / 1000} s`);
  if (r.getAssetBusiestWindow.count > t.getAssetWindow)
    miss('busiest 1-s GetAsset window', String(r.getAssetBusiestWindow.count), `≤ ${t.getAssetWindow}`);
  if (r.natural429Total > t.natural429) miss("the vendor's own 429s", String(r.natural429Total), String(t.natural429));
  return out;
}
