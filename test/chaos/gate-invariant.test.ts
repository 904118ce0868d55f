/**
 * The chaos run's concurrency invariant (tools/bench/chaos-gate.ts), as a pure function: it
 * passes creates made inside their pipeline's holding, and catches a create made without a
 * slot and a gate that had more holders than its limit.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkConcurrencyLimit, chaosTenants } from '../../tools/bench/chaos-gate';
import { planPipelines } from '../../tools/bench/chaos-plan';
import type { GateTimeline } from '../../tools/bench/gate-timeline';

const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 0, 0, s)).toISOString();
const ms = (s: number) => Date.parse(at(s));

function setup() {
  const plan = planPipelines({ pipelines: 24, runTag: 'r' });
  const tenants = chaosTenants('reelflow-r', mkdtempSync(path.join(os.tmpdir(), 'gate-inv-')), plan);
  // p000 made a generation at 10 s and its erase at 20 s; p003 (the same tenant) a generation at 30 s.
  const snapshot = {
    reviewTasks: [],
    groups: [],
    assets: [],
    generationTasks: [
      { id: 'G0', prompt: '[chaos p000] a product', createdAt: at(10) },
      { id: 'G3', prompt: '[chaos p003] a product', createdAt: at(30) },
    ],
    eraseTasks: [{ taskId: 'E0', generationTaskId: 'G0', createdAt: at(20) }],
    counters: {},
  } as unknown as Parameters<typeof checkConcurrencyLimit>[1];
  const timeline = (intervals: GateTimeline['intervals'], maxHolders = 1): GateTimeline => ({
    tenant: tenants.ids[0],
    intervals,
    maxHolders,
    limits: [tenants.concurrency],
    grantOrder: intervals.map((i) => i.pipelineId),
    runs: 1,
  });
  const others = tenants.ids.slice(1).map((tenant) => ({ ...timeline([]), tenant, maxHolders: 0 }));
  return { plan, tenants, snapshot, timeline, others };
}

test('the run is spread over three tenants with a binding limit, named after the run', () => {
  const { plan, tenants } = setup();
  expect(tenants.ids).toEqual(['reelflow-r.t1', 'reelflow-r.t2', 'reelflow-r.t3']);
  expect(tenants.concurrency).toBe(2);
  expect(plan.map((p) => p.definition.options?.tenant).slice(0, 4)).toEqual([...tenants.ids, tenants.ids[0]]);
  const file = JSON.parse(readFileSync(tenants.file, 'utf8')) as { defaults: { concurrency: number } };
  expect(file.defaults.concurrency).toBe(2);
});

test('creates inside their holdings pass; one outside, or too many holders, is a violation', () => {
  const { plan, tenants, snapshot, timeline, others } = setup();
  const [p0, p3] = [plan[0].workflowId, plan[3].workflowId];
  const held = [
    { pipelineId: p0, grantedAtMs: ms(5), releasedAtMs: ms(25), released: 'released' as const },
    { pipelineId: p3, grantedAtMs: ms(26), releasedAtMs: ms(40), released: 'swept' as const },
  ];
  const ok = checkConcurrencyLimit(plan, snapshot, tenants, [timeline(held), ...others]);
  expect(ok).toMatchObject({ pass: true, violations: 0, checked: 3 + 3 });

  // p000's slot released at 15 s: its erase (20 s) was sent without one.
  const early = [{ ...held[0], releasedAtMs: ms(15) }, held[1]];
  const late = checkConcurrencyLimit(plan, snapshot, tenants, [timeline(early), ...others]);
  expect(late.violations).toBe(1);
  expect(late.examples[0]).toMatch(/^erase E0 of r-p000 .* without a slot$/);

  const crowded = checkConcurrencyLimit(plan, snapshot, tenants, [timeline(held, 3), ...others]);
  expect(crowded.examples).toEqual([`${tenants.ids[0]}: 3 holders at once, limit 2`]);
});
