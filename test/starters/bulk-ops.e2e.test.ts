/**
 * Tenant and priority at start, `list --tenant`, and the bulk operations (`cancel --tenant
 * | --batch | --query`, `rerun --batch`) through the CLI, against the REAL dev server, a
 * real worker with a tenant configuration and the vendor emulator. Tenant names are
 * unique to this run, so other tests' pipelines never match. The emulator's clock stands
 * still while pipelines must stay running (a generation never finishes), then runs on.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { TENANT } from '../../src/contract/search-attributes';
import { statusQuery } from '../../src/contract/messages';
import { parseTenantsConfig } from '../../src/tenants/config';
import { cancelPipelines } from '../../src/starters/client/bulk-cancel';
import { startPipeline } from '../../src/starters/client/pipeline-client';
import { fullDefinition, startHarness, type Harness } from '../support/harness';
import { until } from '../support/poll';
import { cli, cliUntil, type CliRun } from '../support/cli';

jest.setTimeout(300_000);

const tag = randomUUID().slice(0, 8);
const A = `acme-${tag}`;
const B = `beta-${tag}`;
const C = `corp-${tag}`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-bulk-e2e-'));
function file(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

const generation = (text: string, options: PipelineDefinitionInput['options'] = {}): PipelineDefinitionInput => ({
  name: 'bulk-e2e',
  generation: { model: 'video-model-1', content: [{ type: 'text', text }] },
  options: { archive: false, allowPrivateHosts: true, ...options },
});

/** The emulator's time: real time, or `frozenAt` while set (a generation then never ends). */
let frozenAt: number | undefined = Date.now();

describe('tenants at start, list --tenant and bulk operations', () => {
  let h: Harness;
  /** `start <file> --json` on this harness's queue: the workflow id. */
  async function start(def: PipelineDefinitionInput, ...flags: string[]): Promise<string> {
    const r = await cli([
      'start',
      file(`${randomUUID()}.json`, JSON.stringify(def)),
      '--task-queue',
      h.taskQueue,
      '--json',
      ...flags,
    ]);
    expect(r).toMatchObject({ code: 0 });
    return r.json().workflowId as string;
  }
  const statusOf = async (id: string) => (await h.client.workflow.getHandle(id).describe()).status.name;
  const count = (r: CliRun) => r.json().matching as number;

  beforeAll(async () => {
    h = await startHarness({
      emulator: { clock: () => frozenAt ?? Date.now() },
      tenants: parseTenantsConfig({
        tenants: { [A]: { maxPriority: 'interactive' }, [B]: {}, [C]: { maxPriority: 'interactive' } },
      }),
    });
  });
  afterAll(async () => h?.close());

  const ids: Record<string, string[]> = { a: [], b: [], c: [] };

  test('start --tenant/--priority: ReelflowTenant and the workflow priority set; the flags replace the definition', async () => {
    // The file says tenant B at batch priority: the flags win.
    ids.a.push(
      await start(generation('a kite', { tenant: B, priority: 'batch' }), '--tenant', A, '--priority', 'interactive'),
    );
    ids.a.push(await start(generation('a boat'), '--tenant', A));
    ids.b.push(await start(generation('a tree', { tenant: B })));
    const d = await h.client.workflow.getHandle(ids.a[0]).describe();
    expect(d.typedSearchAttributes.get(TENANT)).toBe(A);
    expect(d.priority).toMatchObject({ priorityKey: 1, fairnessKey: A });
    const plain = await h.client.workflow.getHandle(ids.a[1]).describe();
    expect(plain.priority?.fairnessKey).toBe(A);
    expect(plain.priority?.priorityKey ?? 0).toBe(0); // no priority asked: Temporal's default
    // The worker read the same: the pipeline runs as A, at interactive.
    const status = await until('the pipeline to report its tenant', async () => {
      const s = await h.client.workflow
        .getHandle(ids.a[0])
        .query(statusQuery)
        .catch(() => undefined);
      return s?.tenant !== undefined && s;
    });
    expect(status).toMatchObject({ tenant: A, priority: 'interactive' });
  });

  test('list --tenant lists exactly that tenant, with a TENANT column', async () => {
    const listed = await cliUntil(['list', '--tenant', A, '--json'], (r) => r.json().pipelines.length === 2);
    expect(
      listed
        .json()
        .pipelines.map((p: { workflowId: string }) => p.workflowId)
        .sort(),
    ).toEqual([...ids.a].sort());
    for (const p of listed.json().pipelines) expect(p.tenant).toBe(A);
    const human = await cli(['list', '--tenant', B, '--task-queue', h.taskQueue]);
    expect(human.stdout.split('\n')[0]).toMatch(/^WORKFLOW ID\s+STATUS\s+STAGE\s+TENANT\s+STARTED/);
    expect(human.stdout).toContain(ids.b[0]);
    expect(human.stdout).toMatch(/1 pipeline\(s\)/);
  });

  test('cancel --tenant: without --yes counts and cancels nothing; with --yes cancels exactly that tenant', async () => {
    const dry = await cliUntil(['cancel', '--tenant', A, '--json'], (r) => r.code === 0 && count(r) === 2);
    expect(dry.json()).toMatchObject({ matching: 2, cancelRequested: false });
    const human = await cli(['cancel', '--tenant', A]);
    expect(human.stdout).toContain(`2 running pipeline(s) match --tenant "${A}"`);
    expect(human.stdout).toContain('nothing cancelled: add --yes');
    for (const id of [...ids.a, ...ids.b]) expect(await statusOf(id)).toBe('RUNNING');

    const done = await cli(['cancel', '--tenant', A, '--yes', '--json']);
    expect(done.code).toBe(0);
    // The dev server (1.29.1) runs Temporal's batch operation: no fallback.
    expect(done.json()).toMatchObject({ mode: 'batch-operation', total: 2, done: 2, failed: 0, cancelRequested: true });
    expect(done.json().fallback).toBeUndefined();
    expect(done.json().jobId).toMatch(/^reelflow-cancel-/);
    for (const id of ids.a) {
      await until(`${id} cancelled`, async () => (await statusOf(id)) === 'CANCELLED');
    }
    expect(await statusOf(ids.b[0])).toBe('RUNNING');
    const after = await cliUntil(['cancel', '--tenant', A, '--json'], (r) => count(r) === 0);
    expect(after.code).toBe(0);
  });

  test("cancel --query: the user's clause stays in parentheses, so its OR cannot widen the match", async () => {
    ids.b.push(await start(generation('a cloud', { tenant: B })));
    ids.c.push(await start(generation('a river'), '--tenant', C));
    const clause = `WorkflowId = '${ids.b[0]}' OR WorkflowId = '${ids.c[0]}'`;
    const dry = await cliUntil(['cancel', '--tenant', B, '--query', clause, '--json'], (r) => count(r) === 1);
    expect(dry.json().query).toContain(`ReelflowTenant = '${B}' AND (${clause})`);
    const done = await cli(['cancel', '--tenant', B, '--query', clause, '--yes', '--json']);
    expect(done.json()).toMatchObject({ done: 1, failed: 0 });
    await until('b0 cancelled', async () => (await statusOf(ids.b[0])) === 'CANCELLED');
    expect(await statusOf(ids.b[1])).toBe('RUNNING');
    expect(await statusOf(ids.c[0])).toBe('RUNNING');
  });

  test('start --batch --tenant/--priority, then cancel --batch; the library cancels each by handle too', async () => {
    const batchId = `bulk-${tag}`;
    const lines = [generation('one'), generation('two', { tenant: B })].map((d) => JSON.stringify(d)).join('\n');
    const started = await cli([
      'start',
      '--batch',
      file('batch.jsonl', lines),
      '--batch-id',
      batchId,
      '--tenant',
      C,
      '--priority',
      'batch',
      '--task-queue',
      h.taskQueue,
      '--json',
    ]);
    expect(started.code).toBe(0);
    const batchIds: string[] = started.json().started.map((s: { workflowId: string }) => s.workflowId);
    expect(batchIds).toHaveLength(2);
    for (const id of batchIds) {
      const d = await h.client.workflow.getHandle(id).describe();
      expect(d.typedSearchAttributes.get(TENANT)).toBe(C);
      expect(d.priority).toMatchObject({ priorityKey: 5, fairnessKey: C });
    }
    await cliUntil(['cancel', '--batch', batchId, '--json'], (r) => count(r) === 2);
    const done = await cli(['cancel', '--batch', batchId, '--yes']);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^2 of 2 cancellation\(s\) requested, 0 failed \(batch operation reelflow-cancel-/);
    expect(done.stderr).toMatch(
      new RegExp(
        `^2 running pipeline\\(s\\) match --batch "${batchId}": cancelling them\n[^]*cancel: 2/2 \\(2 cancelled · 0 failed\\)`,
      ),
    );
    for (const id of batchIds) await until(`${id} cancelled`, async () => (await statusOf(id)) === 'CANCELLED');
    expect(await statusOf(ids.c[0])).toBe('RUNNING'); // tenant C, not of the batch

    const each = await cancelPipelines(h.client, { tenant: C, taskQueue: h.taskQueue }, { mode: 'each' });
    expect(each).toMatchObject({ mode: 'each', total: 1, done: 1, failed: 0, failures: [] });
    await until('c0 cancelled', async () => (await statusOf(ids.c[0])) === 'CANCELLED');
    // The library's start options, on a definition object: replaced, and checked before anything starts.
    const tasks = h.emulator.inspect().generationTasks.length;
    const lib = await startPipeline(h.client, generation('a bell', { tenant: A }), {
      taskQueue: h.taskQueue,
      tenant: B,
      priority: 'batch',
    });
    const described = await lib.describe();
    expect(described.typedSearchAttributes.get(TENANT)).toBe(B);
    expect(described.priority).toMatchObject({ priorityKey: 5, fairnessKey: B });
    await expect(
      startPipeline(h.client, generation('a bell'), { taskQueue: h.taskQueue, priority: 'urgent' as never }),
    ).rejects.toThrow(/^priority: one of interactive, normal, batch/);
    await expect(
      startPipeline(h.client, generation('a bell'), { taskQueue: h.taskQueue, tenant: 'a b' }),
    ).rejects.toThrow(/^tenant: may hold only/);
    // Its generation task created before it is cancelled: no create of it lands in the next test.
    await until('its generation task', () => h.emulator.inspect().generationTasks.length > tasks);
    await cancelPipelines(h.client, { tenant: B, taskQueue: h.taskQueue });
  });

  test('schedule create --tenant/--priority: every run starts as that tenant, at that priority', async () => {
    const scheduleId = `bulk-${tag}`;
    const defFile = file('scheduled.json', JSON.stringify(generation('a lamp', { tenant: B })));
    const created = await cli([
      'schedule',
      'create',
      scheduleId,
      defFile,
      '--every',
      '1d',
      '--tenant',
      C,
      '--priority',
      'interactive',
      '--task-queue',
      h.taskQueue,
      '--json',
    ]);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ tenant: C, priority: 'interactive' });
    try {
      const { action } = await h.client.schedule.getHandle(scheduleId).describe();
      expect(action.type).toBe('startWorkflow');
      expect(action.priority).toMatchObject({ priorityKey: 1, fairnessKey: C });
      const attributes = action.typedSearchAttributes;
      const tenant = Array.isArray(attributes)
        ? attributes.find((a) => a.key.name === TENANT.name)?.value
        : attributes?.get(TENANT);
      expect(tenant).toBe(C);
      const [input] = action.args as [{ definition: PipelineDefinitionInput }];
      expect(input.definition.options).toMatchObject({ tenant: C, priority: 'interactive' });
    } finally {
      await h.client.schedule.getHandle(scheduleId).delete();
    }
  });

  test('rerun --batch reruns only the failed pipelines, reusing their paid work, and nothing twice', async () => {
    // No other pipeline runs on the queue: the one expiring generation below is of this batch.
    // (The tenants' ledgers stay open on it: docs/tenants.md, "Budgets".)
    await until('every earlier pipeline closed', async () => {
      const { count } = await h.client.workflow.count(
        `TaskQueue = '${h.taskQueue}' AND WorkflowType = 'videoPipeline' AND ExecutionStatus = 'Running'`,
      );
      return count === 0;
    });
    frozenAt = undefined;
    const batchId = `rerun-${tag}`;
    const def = (n: number) =>
      JSON.stringify(fullDefinition({ name: `rerun-${n}`, options: { allowPrivateHosts: true, tenant: A } }));
    h.emulator.setFaults({ 'generation.create': { expire: { next: 1 } } });
    const started = await cli([
      'start',
      '--batch',
      file('rerun.jsonl', `${def(1)}\n${def(2)}\n`),
      '--batch-id',
      batchId,
      '--task-queue',
      h.taskQueue,
      '--json',
    ]);
    expect(started.code).toBe(0);
    const waited = await cli(['wait', '--batch', batchId, '--expect', '2', '--interval', '500', '--json']);
    h.emulator.setFaults({});
    expect(waited.code).toBe(1);
    expect(waited.json().counts).toEqual({ completed: 1, failed: 1 });
    const failedId: string = waited.json().failures[0].workflowId;

    const dry = await cliUntil(['rerun', '--batch', batchId, '--json'], (r) => r.json().toRerun?.length === 1);
    expect(dry.json()).toMatchObject({ toRerun: [failedId], alreadyRerun: [], rerunStarted: false, total: 2 });

    const seq = Math.max(0, ...h.emulator.inspect().requests.map((r) => r.seq));
    const rerun = await cli(['rerun', '--batch', batchId, '--yes', '--json']);
    expect(rerun.code).toBe(0);
    expect(rerun.json().results).toEqual([
      expect.objectContaining({
        workflowId: failedId,
        outcome: 'rerun',
        rerunId: `${failedId}-rerun1`,
        from: 'generation',
        reused: ['review', 'assets'],
      }),
    ]);
    const result = await h.client.workflow.getHandle(`${failedId}-rerun1`).result();
    expect(result.reused?.stages).toEqual(['review', 'assets']);
    const creates = h.emulator
      .inspect()
      .requests.filter((r) => r.seq > seq && /create|review\.(sync|async)/i.test(r.endpoint ?? ''))
      .map((r) => r.endpoint);
    expect(creates.sort()).toEqual(['erase.create', 'generation.create']); // no review, group or asset again
    const d = await h.client.workflow.getHandle(`${failedId}-rerun1`).describe();
    expect(d.typedSearchAttributes.get(TENANT)).toBe(A);

    // The batch as `wait` sees it: the rerun replaces the failed pipeline.
    const waitedAgain = await cli(['wait', '--batch', batchId, '--expect', '2', '--interval', '500', '--json']);
    expect(waitedAgain.code).toBe(0);
    expect(waitedAgain.json()).toMatchObject({ total: 2, counts: { completed: 2 } });
    expect(waitedAgain.json().pipelines.map((p: { workflowId: string }) => p.workflowId)).toContain(
      `${failedId}-rerun1`,
    );

    const again = await cliUntil(
      ['rerun', '--batch', batchId, '--yes', '--json'],
      (r) => r.json().alreadyRerun?.length === 1,
    );
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ toRerun: [], rerunStarted: false });
    expect(again.json().alreadyRerun).toEqual([{ workflowId: failedId, rerunId: `${failedId}-rerun1` }]);
  });
});
