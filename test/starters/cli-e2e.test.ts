/**
 * The CLI against the REAL dev server (global setup), a real worker on its own task
 * queue and the vendor emulator (test/support/harness.ts): start, status, result,
 * run with its live display, list on the search attributes, cancel, resolve.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { startHarness, type Harness } from '../support/harness';
import { cli, cliUntil, type CliRun } from '../support/cli';

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-cli-e2e-'));
let n = 0;
function defFile(def: PipelineDefinitionInput): string {
  const file = path.join(dir, `def-${++n}.json`);
  writeFileSync(file, JSON.stringify(def, null, 2));
  return file;
}

const GENERATION_ONLY: PipelineDefinitionInput = {
  name: 'cli-e2e',
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'a kite over the sea' }] },
  options: { archive: false },
};

describe('pipelines through the CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ callbacks: true });
  });
  afterAll(async () => h?.close());

  test('start prints the id; status and result follow it; list finds it', async () => {
    const started = await cli(['start', defFile(GENERATION_ONLY), '--task-queue', h.taskQueue]);
    expect(started.code).toBe(0);
    const id = started.stdout.trim();
    expect(id).toMatch(/^reelflow-cli-e2e-[a-z0-9]{8}$/);
    expect(started.stderr).toContain(`reelflow status ${id} --follow`);

    // Skipped stages are known once the definition-validating activity has answered: on a
    // busy machine (or a real cluster) a status right after start can come before that.
    const running = await cliUntil(
      ['status', id, '--json'],
      (r) => r.code === 0 && r.json().stages?.review?.state === 'skipped',
    );
    expect(running.code).toBe(0);
    expect(running.json()).toMatchObject({
      pipelineId: id,
      stages: { generation: expect.any(Object), review: { state: 'skipped' } },
    });

    const result = await cli(['result', id, '--json']);
    expect(result.code).toBe(0);
    const doc = result.json();
    expect(doc).toMatchObject({
      workflowId: id,
      status: 'completed',
      result: { pipelineId: id, generation: { taskId: expect.any(String) } },
    });
    const taskId = doc.result.generation.taskId as string;

    const human = await cli(['status', id]);
    expect(human.stdout.split('\n')[0]).toBe(`${id}  completed`);
    expect(human.stdout).toMatch(new RegExp(`generation\\s+done\\s+.*tasks ${taskId}`));

    // Search attributes: by vendor task id, by status, by stage.
    const byTask = await cliUntil(['list', '--vendor-task', taskId, '--json'], (r) => r.json().pipelines.length > 0);
    expect(byTask.json().pipelines).toEqual([
      expect.objectContaining({
        workflowId: id,
        executionStatus: 'completed',
        stage: 'done',
        status: 'completed',
        vendorTaskIds: [taskId],
      }),
    ]);
    const completed = await cliUntil(['list', '--status', 'completed', '--json'], (r) =>
      r.json().pipelines.some((p: { workflowId: string }) => p.workflowId === id),
    );
    expect(completed.code).toBe(0);
    expect(completed.json().pipelines.map((p: { workflowId: string }) => p.workflowId)).toContain(id);
    const failed = await cli(['list', '--status', 'failed', '--json']);
    expect(failed.json().pipelines.map((p: { workflowId: string }) => p.workflowId)).not.toContain(id);
    const table = await cli(['list', '--vendor-task', taskId]);
    expect(table.stdout).toMatch(/^WORKFLOW ID\s+STATUS\s+STAGE\s+STARTED\s+VENDOR TASKS\n/);
    expect(table.stdout).toContain(`${id}  completed`);
  });

  test('run examples/pipeline.json: live display line by line, result, exit 0', async () => {
    const r = await cli([
      'run',
      'examples/pipeline.json',
      '--task-queue',
      h.taskQueue,
      '--workflow-id',
      `cli-run-${Date.now()}`,
      '--interval',
      '300',
    ]);
    expect(r.stderr).toContain('started cli-run-');
    expect(r.code).toBe(0);
    const out = r.stdout;
    // Which intermediate states a poll catches depends on timing; every stage ends done.
    for (const stage of ['review', 'assets', 'generation', 'erase'])
      expect(out).toMatch(new RegExp(`^${stage}: done`, 'm'));
    expect(out).toContain('pipeline completed');
    expect(out).toMatch(/vendor review \S+/);
    expect(out).toMatch(/vendor generation \S+/);
    expect(out).toMatch(/pipeline cli-run-\d+ completed\n {2}review.*: 2\/2 passed/);
    expect(out).toMatch(/ {2}erase.*: task \S+\n {4}video http/);
    // In order: the last stage ends before the pipeline does.
    const live = out.slice(0, out.indexOf(`pipeline cli-run-`)).split('\n');
    expect(live.findIndex((l) => l.startsWith('erase: done'))).toBeLessThan(live.indexOf('pipeline completed'));
  });

  test('run on a TTY redraws the block in place', async () => {
    const r = await cli(['run', defFile(GENERATION_ONLY), '--task-queue', h.taskQueue, '--interval', '200'], {
      tty: true,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\x1b\[\d+A\r\x1b\[0J/);
    expect(r.stdout).toMatch(/ {2}generation\s+done/);
  });

  test('run --json prints exactly one document', async () => {
    const r = await cli(['run', defFile(GENERATION_ONLY), '--task-queue', h.taskQueue, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ status: 'completed', result: { generation: { videoUrl: expect.any(String) } } });
  });

  test('an invalid definition starts nothing (exit 2), an unknown id is a clear error (exit 1)', async () => {
    const bad = await cli(['start', defFile({ generation: { model: 'm', content: [] } }), '--task-queue', h.taskQueue]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/def-\d+\.json: generation\.content: /);
    const missing = await cli(['status', 'reelflow-no-such-pipeline']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no pipeline with workflow id "reelflow-no-such-pipeline"');
    const dup = await cli([
      'start',
      defFile(GENERATION_ONLY),
      '--task-queue',
      h.taskQueue,
      '--workflow-id',
      'cli-dup-1',
    ]);
    expect(dup.code).toBe(0);
    const again = await cli([
      'start',
      defFile(GENERATION_ONLY),
      '--task-queue',
      h.taskQueue,
      '--workflow-id',
      'cli-dup-1',
    ]);
    if (again.code !== 0) expect(again.stderr).toContain('"cli-dup-1" is already in use');
    await cli(['result', 'cli-dup-1']);
  });
});

describe('cancel through the CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { profile: { generationRunningMs: 600_000 } } });
  });
  afterAll(async () => h?.close());

  test('Ctrl-C during run stops following only: exit 130, the pipeline keeps running', async () => {
    const abort = new AbortController();
    const id = `cli-detach-${Date.now()}`;
    setTimeout(() => abort.abort(new Error('interrupted')), 2_000);
    const r = await cli(['run', defFile(GENERATION_ONLY), '--task-queue', h.taskQueue, '--workflow-id', id], {
      signal: abort.signal,
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toContain(`stopped following; pipeline ${id} keeps running (reelflow status ${id} --follow)`);
    expect((await h.client.workflow.getHandle(id).describe()).status.name).toBe('RUNNING');
    expect((await cli(['cancel', id, '--wait'])).code).toBe(0);
  });

  test('cancel --wait ends the pipeline as cancelled; result exits 3 with the chain', async () => {
    const id = (await cli(['start', defFile(GENERATION_ONLY), '--task-queue', h.taskQueue])).stdout.trim();
    // Wait until the vendor task exists, so the cancellation hits a running stage.
    const deadline = Date.now() + 30_000;
    while (h.emulator.inspect().generationTasks.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    const running = await cliUntil(['list', '--status', 'running', '--json'], (r) =>
      r.json().pipelines.some((p: { workflowId: string }) => p.workflowId === id),
    );
    expect(running.json().pipelines.map((p: { workflowId: string }) => p.workflowId)).toContain(id);

    const cancelled = await cli(['cancel', id, '--wait', '--json']);
    expect(cancelled.code).toBe(0);
    expect(cancelled.json()).toMatchObject({ workflowId: id, cancelRequested: true, status: 'cancelled' });

    const result = await cli(['result', id]);
    expect(result.code).toBe(3);
    expect(result.stdout.split('\n')[0]).toMatch(new RegExp(`^pipeline ${id} cancelled: `));

    // Cancelling it again: nothing to do, and that is no failure.
    const again = await cli(['cancel', id]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`pipeline ${id} already cancelled: nothing to cancel\n`);
    const againJson = await cli(['cancel', id, '--json']);
    expect(againJson.code).toBe(0);
    expect(againJson.json()).toEqual({ workflowId: id, cancelRequested: false, status: 'cancelled' });
  });
});

describe('resolve through the CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    // The first generation create is made at the vendor, then answered with a 500:
    // ambiguous; no callbacks to reconcile with; policy "ask" → waits for an operator.
    h = await startHarness({ emulator: { faults: { 'generation.create': { error500AfterCreate: { next: 1 } } } } });
  });
  afterAll(async () => h?.close());

  test('status shows the hint, list finds it waiting, resolve --task-id completes it', async () => {
    const def: PipelineDefinitionInput = {
      ...GENERATION_ONLY,
      options: { archive: false, ambiguousCreate: { generation: 'ask' }, deadlines: { callbackGrace: '1s' } },
    };
    const id = (await cli(['start', defFile(def), '--task-queue', h.taskQueue])).stdout.trim();
    let status: CliRun | undefined;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      status = await cli(['status', id, '--json']);
      if (status.code === 0 && status.json().waiting) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(status!.json()).toMatchObject({ state: 'waiting-operator', waiting: { stage: 'generation' } });
    const human = await cli(['status', id]);
    expect(human.stdout).toContain(`waiting for operator (generation, step `);
    expect(human.stdout).toContain(
      `run \`reelflow resolve ${id} --task-id <vendor task id> | --resubmit | --abandon\``,
    );

    const waiting = await cliUntil(['list', '--status', 'waiting-operator', '--json'], (r) =>
      r.json().pipelines.some((p: { workflowId: string }) => p.workflowId === id),
    );
    expect(waiting.json().pipelines.map((p: { workflowId: string }) => p.workflowId)).toContain(id);
    // --waiting: the same list, and the Web UI link of it (TEMPORAL_UI_URL, as for run and start).
    const env = { ...process.env, TEMPORAL_UI_URL: 'http://ui.example:8233/' };
    const short = await cli(['list', '--waiting'], { env });
    expect(short.code).toBe(0);
    expect(short.stdout).toContain(`${id}  waiting-operator`);
    const link = /^Web UI: (\S+)$/m.exec(short.stderr)?.[1];
    expect(link).toMatch(/^http:\/\/ui\.example:8233\/namespaces\/default\/workflows\?query=/);
    expect(decodeURIComponent(new URL(link!).search.slice('?query='.length))).toContain(
      "ReelflowStatus = 'waiting-operator'",
    );

    // A task id the vendor does not know is refused in the workflow's own words; the pipeline waits on.
    const bogus = await cli(['resolve', id, '--task-id', 'bogus-id']);
    expect(bogus.code).toBe(1);
    expect(bogus.stdout).toBe('');
    expect(bogus.stderr).toMatch(
      /^reelflow: resolve refused: task bogus-id is not found at the vendor yet \(it may lag just after a create\); try again in \d+ s\n$/,
    );
    expect(bogus.stderr).not.toContain('WorkflowUpdateFailedError');
    const bogusJson = await cli(['resolve', id, '--task-id', 'bogus-id', '--json']);
    expect(bogusJson.code).toBe(1);
    expect(bogusJson.json().error).toMatchObject({ kind: 'refused', type: 'TaskIdRefused', workflowId: id });
    expect((await cli(['status', id, '--json'])).json()).toMatchObject({ state: 'waiting-operator' });

    const taskId = h.emulator.inspect().generationTasks[0].id;
    const resolved = await cli(['resolve', id, '--task-id', taskId, '--json']);
    expect(resolved.code).toBe(0);
    expect(resolved.json()).toMatchObject({ workflowId: id, stage: 'generation', accepted: { taskId } });

    const result = await cli(['result', id, '--json']);
    expect(result.code).toBe(0);
    expect(result.json().result.generation.taskId).toBe(taskId);
    expect(h.emulator.inspect().generationTasks).toHaveLength(1);

    const late = await cli(['resolve', id, '--resubmit']);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain(`pipeline ${id} already completed: nothing waits for a decision`);
    const lateCancel = await cli(['cancel', id]);
    expect(lateCancel.code).toBe(0);
    expect(lateCancel.stdout).toContain(`pipeline ${id} already completed: nothing to cancel`);
  });
});
