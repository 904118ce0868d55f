/**
 * `npm run bench -- --scenario tenants`: the noisy neighbour (tenants-plan.ts) on one
 * Temporal server: B alone, A alone, then each variant, every run with a fresh emulator,
 * worker(s) and task queue (runReelflow).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEV_DYNAMIC_CONFIG } from '../devstack/dev-server';
import type { BenchFlags } from './flags';
import type { PhaseContext } from './phase';
import type { Sampler } from './processes';
import { runReelflow } from './reelflow-run';
import { runSummary, type TenantsRun } from './tenants-report';
import { MATCHER_KEYS, matcherSettingsOf, ownTenants, tenantsRunPlans, type TenantsScenario } from './tenants-plan';

export interface TenantsRunContext {
  root: string;
  runDir: string;
  tag: string;
  log: (line: string) => void;
  temporal: { address: string; pid: number };
  sampler: Sampler;
}

/** One run of a scenario: n pipelines of the flags' workload, in the flags' single callback mode. */
export function phaseContextOf(flags: BenchFlags, c: TenantsRunContext, n: number): PhaseContext {
  return {
    root: c.root,
    runDir: c.runDir,
    tag: c.tag,
    n,
    workload: flags.workload,
    callbacks: flags.modes[0] === 'on',
    timeoutMs: flags.timeoutMs,
    log: c.log,
    ...(flags.cpuProfile ? { cpuProfileDir: path.join(c.runDir, 'profiles') } : {}),
  };
}

export async function runTenantsScenario(
  flags: BenchFlags,
  scenario: TenantsScenario,
  c: TenantsRunContext,
): Promise<TenantsRun[]> {
  const suffix = randomBytes(3).toString('hex');
  const runs: TenantsRun[] = [];
  for (const plan of tenantsRunPlans(scenario)) {
    const own = ownTenants(plan, suffix);
    const tenantsFile = path.join(c.runDir, `tenants-${plan.label}.json`);
    writeFileSync(tenantsFile, JSON.stringify(own.file, null, 2));
    const n = plan.waves.reduce((a, w) => a + w.count, 0);
    const ctx = phaseContextOf(flags, c, n);
    c.log(`tenants: run ${plan.label} (${plan.tenantsFile ? 'tenants file' : 'no tenants file'})`);
    const result = await runReelflow({
      ctx,
      label: plan.label,
      waves: own.waves,
      temporal: c.temporal,
      workers: flags.workers,
      ...(flags.getAssetRate !== undefined ? { getAssetRate: flags.getAssetRate } : {}),
      workerEnv: { ...flags.workerEnv, ...(plan.tenantsFile ? { REELFLOW_TENANTS_FILE: tenantsFile } : {}) },
      sampler: c.sampler,
    });
    const summary = runSummary(plan, result);
    const b = summary.B ? ` B p50 ${(summary.B.pipelineMs.p50 / 1000).toFixed(1)} s;` : '';
    const a = summary.A ? ` A wall ${(summary.A.wallMs / 1000).toFixed(1)} s;` : '';
    c.log(`  ${plan.label}: ${result.completed}/${result.pipelines} completed;${b}${a}`);
    runs.push({ plan, summary, result });
  }
  return runs;
}

/** The server's matcher settings as this bench starts it: the dev server's flags, or the cluster's YAML. */
export function matcherSettings(kind: 'dev' | 'cluster', root: string): Record<string, string> {
  if (kind === 'cluster')
    return matcherSettingsOf(readFileSync(path.join(root, 'deploy', 'dynamicconfig.yaml'), 'utf8'));
  return Object.fromEntries(
    MATCHER_KEYS.map((k) => [k, k in DEV_DYNAMIC_CONFIG ? String(DEV_DYNAMIC_CONFIG[k]) : 'unset']),
  );
}
