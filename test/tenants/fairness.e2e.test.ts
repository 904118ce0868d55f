/**
 * Temporal's task-queue priority and fairness on the rate-limited GetAsset queue
 * (docs/tenants.md#fair-share-of-the-vendor), with the server's own matcher: tenant a's
 * pipelines build a GetAsset backlog while nobody polls that queue, tenant b's few arrive
 * after it, then the GetAsset worker starts. The emulator's request log gives the order in
 * which the tasks reached the vendor. Plain FIFO would send all of a's first. `npm run
 * test:cluster` runs this file on the real server too.
 */
import { randomUUID } from 'node:crypto';
import { busiestWindow } from '../../tools/bench/rate-window';
import { startPriority } from '../../src/contract/tenancy';
import type { PriorityLevel } from '../../src/definition/schema';
import { parseTenantsConfig } from '../../src/tenants/config';
import { videoPipeline } from '../../src/workflows';
import { startHarness, type Harness } from '../support/harness';
import { REAL_CLOCK_TIMINGS } from '../support/emulator';
import { until } from '../support/poll';

const A_PIPELINES = 30;
const B_PIPELINES = 10;
/** GetAsset tasks one worker process holds at once (src/workers/worker.ts): the first dispatch. */
const FIRST_DISPATCH = 10;

interface Started {
  tenant: 'a' | 'b';
  workflowId: string;
  group: string;
}

/**
 * A raw start, as any client could send it: the definition's claim, and the workflow's own
 * priority and fairness key set from it (what pipeline-client sets), not from the policy.
 */
/**
 * The tenants' ids, fresh per test: a ledger (docs/tenants.md, "Budgets") lives per tenant on the
 * task queue that first used it, so a test reusing another test's tenant would meet a ledger
 * whose worker is gone.
 */
const T = { a: 'a', b: 'b' };
function freshTenants(): void {
  const tag = randomUUID().slice(0, 6);
  T.a = `a${tag}`;
  T.b = `b${tag}`;
}

async function start(h: Harness, tenant: 'a' | 'b', priority: PriorityLevel): Promise<Started> {
  const group = `fair-${T[tenant]}-${randomUUID().slice(0, 8)}`;
  const workflowId = `fair-${tenant}-${randomUUID().slice(0, 8)}`;
  const definition = {
    name: `fair-${tenant}`,
    assets: {
      group: { name: group },
      items: [{ name: 'hero', url: 'https://media.example.com/hero.png', type: 'Image' as const }],
    },
    options: { tenant: T[tenant], priority, allowPrivateHosts: true },
  };
  await h.client.workflow.start(videoPipeline, {
    taskQueue: h.taskQueue,
    workflowId,
    args: [{ definition }],
    priority: startPriority(T[tenant], priority),
  });
  return { tenant, workflowId, group };
}

/** The pipeline's pending GetAsset activity, as DescribeWorkflowExecution shows it (once scheduled). */
async function pendingGetAsset(h: Harness, workflowId: string) {
  const d = await h.connection.workflowService.describeWorkflowExecution({
    namespace: h.client.options.namespace,
    execution: { workflowId },
  });
  return (d.pendingActivities ?? []).find((a) => a.activityType?.name === 'getAsset');
}

async function allScheduled(h: Harness, started: Started[]) {
  return until(`a GetAsset scheduled by each of ${started.length} pipelines`, async () => {
    const pending = await Promise.all(started.map((s) => pendingGetAsset(h, s.workflowId)));
    const scheduled = pending.filter((p) => p !== undefined);
    return scheduled.length === started.length && scheduled;
  });
}

/**
 * Starts a's pipelines, waits for their backlog, starts b's, waits for theirs, starts the
 * GetAsset worker and runs everything to the end. Returns the tenant of each asset's first
 * GetAsset, in the order the vendor received them, and the pending GetAssets seen.
 */
async function backlogRun(h: Harness, aPriority: PriorityLevel, bPriority: PriorityLevel) {
  const a = await Promise.all(Array.from({ length: A_PIPELINES }, () => start(h, 'a', aPriority)));
  const pendingA = await allScheduled(h, a);
  const b = await Promise.all(Array.from({ length: B_PIPELINES }, () => start(h, 'b', bPriority)));
  const pendingB = await allScheduled(h, b);
  await h.restartWorkers(true);
  await Promise.all([...a, ...b].map((s) => h.client.workflow.getHandle(s.workflowId).result()));

  const snap = h.emulator.inspect();
  const tenantOfGroup = new Map(snap.groups.map((g) => [g.Id, g.Name.split('-')[1]?.charAt(0)]));
  const tenantOfAsset = new Map(snap.assets.map((x) => [x.Id, tenantOfGroup.get(x.GroupId)]));
  const firsts = new Set<string>();
  const order: string[] = [];
  for (const r of snap.requests) {
    if (r.endpoint !== 'assets.GetAsset' || !r.resourceId || firsts.has(r.resourceId)) continue;
    firsts.add(r.resourceId);
    order.push(tenantOfAsset.get(r.resourceId) ?? '?');
  }
  const gets = snap.requests.filter((r) => r.endpoint === 'assets.GetAsset');
  const vendor = {
    gets: gets.length,
    busiest: busiestWindow(gets.map((r) => Date.parse(r.at))).count,
    rejected: gets.filter((r) => r.status === 429).map((r) => `${r.seq}@${r.at}`),
    // Arrival gaps (ms) of the 11 calls up to the first 429, when there is one.
    gapsTo429: gapsBefore(
      gets,
      gets.findIndex((r) => r.status === 429),
    ),
  };
  return { order, pendingA, pendingB, vendor, started: { a, b } };
}

function gapsBefore(gets: { at: string }[], i: number): number[] {
  if (i < 0) return [];
  const t = gets.slice(Math.max(0, i - 10), i + 1).map((r) => Date.parse(r.at));
  return t.slice(1).map((x, k) => x - t[k]);
}

let h: Harness;
afterEach(async () => {
  await h?.close();
});

test('same priority: b\u2019s GetAssets (weight 2) are dispatched fairly against a\u2019s backlog, not behind it', async () => {
  freshTenants();
  const tenants = parseTenantsConfig({
    tenants: { [T.a]: { maxPriority: 'normal' }, [T.b]: { maxPriority: 'normal', weight: 2 } },
  });
  h = await startHarness({ tenants, getAssetWorkers: false, emulator: { profile: REAL_CLOCK_TIMINGS } });
  const { order, pendingA, pendingB, vendor } = await backlogRun(h, 'normal', 'normal');

  expect(order).toHaveLength(A_PIPELINES + B_PIPELINES);
  expect(order.filter((t) => t === '?')).toEqual([]);
  // Every task carries its tenant as fairness key, at the policy's priority and weight.
  for (const p of pendingA) expect(p.priority).toMatchObject({ priorityKey: 3, fairnessKey: T.a, fairnessWeight: 1 });
  for (const p of pendingB) expect(p.priority).toMatchObject({ priorityKey: 3, fairnessKey: T.b, fairnessWeight: 2 });
  // FIFO would send a's 30 first; weighted round robin between the two keys puts b's early.
  const bInFirst20 = order.slice(0, 2 * B_PIPELINES).filter((t) => t === 'b').length;
  console.log(`fairness, same priority: order ${order.join('')}; GetAsset ${JSON.stringify(vendor)}`);
  expect(order.slice(0, FIRST_DISPATCH)).toContain('b');
  expect(bInFirst20).toBeGreaterThanOrEqual(B_PIPELINES / 2);
});

test('priority: b (interactive) goes first; a raw start claiming interactive for a tenant capped at batch runs at key 5', async () => {
  freshTenants();
  const tenants = parseTenantsConfig({
    tenants: { [T.a]: { maxPriority: 'batch' }, [T.b]: { maxPriority: 'interactive' } },
  });
  h = await startHarness({ tenants, getAssetWorkers: false, emulator: { profile: REAL_CLOCK_TIMINGS } });
  const { order, pendingA, pendingB, vendor, started } = await backlogRun(h, 'interactive', 'interactive');

  // a claimed interactive (its workflow started at key 1); its activities run at its cap.
  for (const p of pendingA) expect(p.priority).toMatchObject({ priorityKey: 5, fairnessKey: T.a });
  // The workflow's own tasks keep the claim: server 1.29 cannot change a running workflow's priority.
  const own = await h.connection.workflowService.describeWorkflowExecution({
    namespace: h.client.options.namespace,
    execution: { workflowId: started.a[0].workflowId },
  });
  expect(own.workflowExecutionInfo?.priority).toMatchObject({ priorityKey: 1, fairnessKey: T.a });
  for (const p of pendingB) expect(p.priority).toMatchObject({ priorityKey: 1, fairnessKey: T.b });
  console.log(`priority: order ${order.join('')}; GetAsset ${JSON.stringify(vendor)}`);
  // b's ten fill the worker's first dispatch; a's come after.
  expect(order.slice(0, FIRST_DISPATCH)).toEqual(Array(B_PIPELINES).fill('b'));
  expect(order.slice(FIRST_DISPATCH)).toEqual(Array(A_PIPELINES).fill('a'));
});
