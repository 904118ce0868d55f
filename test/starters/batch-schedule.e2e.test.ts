/**
 * Batches and schedules through the CLI, against the REAL dev server (global setup), a
 * real worker on its own task queue and the vendor emulator (test/support/harness.ts).
 * Visibility is eventually consistent: what is read from it is polled until it matches.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { BATCH, STAGE, STATUS } from '../../src/contract/search-attributes';
import { startHarness, type Harness } from '../support/harness';
import { cli, cliUntil } from '../support/cli';

jest.setTimeout(240_000);

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-batch-e2e-'));
function file(name: string, text: string): string {
  const f = path.join(dir, name);
  writeFileSync(f, text);
  return f;
}

const generation = (text: string): PipelineDefinitionInput => ({
  name: 'batch-e2e',
  generation: { model: 'video-model-1', content: [{ type: 'text', text }] },
  options: { archive: false },
});

const ids = (items: { workflowId: string }[]) => items.map((p) => p.workflowId).sort();

describe('batches and schedules through the CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test('a batch with a bad line starts the others once; list and wait see exactly the batch', async () => {
    const batchId = `b-${randomUUID().slice(0, 8)}`;
    const lines = [
      JSON.stringify(generation('a kite over the sea')),
      '',
      JSON.stringify({ generation: { model: 'video-model-1', content: [] } }),
      JSON.stringify(generation('a boat in the harbour')),
    ];
    const defs = file(`${batchId}.jsonl`, `${lines.join('\n')}\n`);
    const argv = ['start', '--batch', defs, '--batch-id', batchId, '--task-queue', h.taskQueue];

    const first = await cli([...argv, '--json']);
    expect(first.code).toBe(1); // a line failed; the others started
    const doc = first.json();
    expect(doc).toMatchObject({ batchId, total: 3, alreadyStarted: [] });
    expect(doc.started.map((s: { line: number }) => s.line)).toEqual([1, 4]);
    expect(doc.failed).toEqual([
      expect.objectContaining({ line: 3, field: 'generation.content', error: expect.stringContaining(`${defs}:3: `) }),
    ]);
    const started: string[] = ids(doc.started);
    for (const id of started) expect(id).toMatch(new RegExp(`^${batchId}-[0-9a-f]{16}$`));

    // Another batch running at the same time must not show up in this one.
    const otherId = `b-${randomUUID().slice(0, 8)}`;
    const other = await cli([
      'start',
      '--batch',
      file(`${otherId}.jsonl`, JSON.stringify(generation('a kite over the sea'))),
      '--batch-id',
      otherId,
      '--task-queue',
      h.taskQueue,
      '--json',
    ]);
    expect(other.code).toBe(0);

    const waited = await cli(['wait', '--batch', batchId, '--expect', '2', '--interval', '300', '--json']);
    expect(waited.code).toBe(0);
    expect(waited.json()).toMatchObject({ batchId, done: true, total: 2, counts: { completed: 2 }, failures: [] });
    expect(ids(waited.json().pipelines)).toEqual(started);

    // The pipeline's own upserts (stage, status) left ReelflowBatch in place.
    const listed = await cliUntil(
      ['list', '--batch', batchId, '--json'],
      (r) => r.json().pipelines.filter((p: { stage?: string }) => p.stage === 'done').length === 2,
    );
    expect(ids(listed.json().pipelines)).toEqual(started);
    for (const p of listed.json().pipelines) expect(p).toMatchObject({ batch: batchId, status: 'completed' });
    const described = await h.client.workflow.getHandle(started[0]).describe();
    expect(described.typedSearchAttributes.get(BATCH)).toBe(batchId);

    // Again, after they completed (within retention): nothing starts twice.
    const again = await cli([...argv, '--json']);
    expect(again.code).toBe(1);
    expect(again.json()).toMatchObject({ started: [], failed: [{ line: 3 }] });
    expect(ids(again.json().alreadyStarted)).toEqual(started);

    // People get a bar on a TTY (stderr) and one row per line.
    const human = await cli(argv, { stderrTty: true });
    expect(human.stderr).toMatch(/\r\x1b\[2Kbatch \S+ \[#+\] 3\/3 {2}0 started · 2 already · 1 failed\n/);
    expect(human.stdout).toMatch(/^line 1\s+already started\s+b-/m);
    expect(human.stdout).toMatch(new RegExp(`^line 3\\s+failed\\s+${defs}:3: generation\\.content: `, 'm'));
    expect(human.stdout).toContain(`batch ${batchId}: 0 started, 2 already started, 1 failed`);
  });

  test('on a namespace without the search attributes, each line says why and how to fix it', async () => {
    const namespace = `no-sa-${randomUUID().slice(0, 8)}`;
    await h.client.connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: { seconds: 86_400 as never },
    });
    const defs = file(`${namespace}.jsonl`, JSON.stringify(generation('a quiet street')));
    const r = await cliUntil(
      ['start', '--batch', defs, '--namespace', namespace, '--json'],
      (x) => !/namespace .* not found/i.test(x.stdout),
    );
    expect(r.code).toBe(1);
    expect(r.json().failed).toEqual([
      expect.objectContaining({
        line: 1,
        error: expect.stringMatching(
          /:1: .*no mapping defined for search attribute Reelflow\w+ \(register .*: reelflow setup\)$/,
        ),
      }),
    ]);
  });

  test('wait exits non-zero when a pipeline of the batch failed, and says why', async () => {
    const batchId = `b-${randomUUID().slice(0, 8)}`;
    const defs = file(
      `${batchId}.jsonl`,
      [generation('calm water'), generation('fail-generation please')].map((d) => JSON.stringify(d)).join('\n'),
    );
    const started = await cli(['start', '--batch', defs, '--batch-id', batchId, '--task-queue', h.taskQueue]);
    expect(started.code).toBe(0);
    expect(started.stderr).toContain(`reelflow wait --batch ${batchId} --expect 2`);

    const waited = await cli(['wait', '--batch', batchId, '--expect', '2', '--interval', '300']);
    expect(waited.code).toBe(1);
    expect(waited.stdout).toMatch(
      new RegExp(`^batch ${batchId}: 2 pipeline\\(s\\): (1 completed, 1 failed|1 failed, 1 completed)`),
    );
    expect(waited.stdout).toMatch(/^ {2}b-\S+ {2}failed at generation: .*GenerationFailed/m);
  });

  test('a schedule starts real pipelines that complete; list shows it; delete removes it', async () => {
    const scheduleId = `s-${randomUUID().slice(0, 8)}`;
    const def = file(`${scheduleId}.json`, JSON.stringify(generation('a lighthouse at dusk')));
    const badCron = await cli(['schedule', 'create', scheduleId, def, '--cron', '61 * * * *', '--json']);
    expect(badCron.code).toBe(2);
    expect(badCron.json().error).toMatchObject({ option: '--cron' });
    const badDef = await cli([
      'schedule',
      'create',
      scheduleId,
      file('bad.json', '{"generation":{}}'),
      '--every',
      '2s',
    ]);
    expect(badDef.code).toBe(2);
    expect(badDef.stderr).toContain('generation.model');

    const created = await cli([
      ...['schedule', 'create', scheduleId, def, '--every', '2s', '--task-queue', h.taskQueue, '--json'],
    ]);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({
      scheduleId,
      spec: 'every 2s',
      overlap: 'skip',
      workflowIdPrefix: scheduleId,
    });
    const twice = await cli(['schedule', 'create', scheduleId, def, '--every', '2s']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`schedule "${scheduleId}" already exists`);

    try {
      const handle = h.client.schedule.getHandle(scheduleId);
      let runId: string | undefined;
      for (const deadline = Date.now() + 60_000; !runId && Date.now() < deadline;) {
        runId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
        if (!runId) await new Promise((r) => setTimeout(r, 500));
      }
      expect(runId).toMatch(new RegExp(`^${scheduleId}-`));
      const run = h.client.workflow.getHandle(runId!);
      expect(await run.result()).toMatchObject({ generation: { taskId: expect.any(String) } });
      const d = await run.describe();
      expect(d.type).toBe('videoPipeline');
      expect(d.typedSearchAttributes.get(STAGE)).toBe('done');
      expect(d.typedSearchAttributes.get(STATUS)).toBe('completed');
      expect((await run.fetchHistory()).events?.[0].userMetadata?.summary).toBeTruthy();

      const listed = await cliUntil(['schedule', 'list', '--json'], (r) =>
        r.json().schedules.some((s: { scheduleId: string }) => s.scheduleId === scheduleId),
      );
      expect(listed.json().schedules).toContainEqual(
        expect.objectContaining({ scheduleId, spec: 'every 2s', overlap: 'skip', paused: false }),
      );
      const byQuery = await cliUntil(
        ['list', '--query', `TemporalScheduledById = '${scheduleId}'`, '--status', 'completed', '--json'],
        (r) => r.json().pipelines.some((p: { workflowId: string }) => p.workflowId === runId),
      );
      expect(byQuery.json().pipelines.map((p: { workflowId: string }) => p.workflowId)).toContain(runId);
      const table = await cli(['schedule', 'list']);
      expect(table.stdout).toMatch(new RegExp(`^${scheduleId}\\s+every 2s\\s+skip\\s+\\S+`, 'm'));
    } finally {
      const deleted = await cli(['schedule', 'delete', scheduleId]);
      expect(deleted.code).toBe(0);
    }
    await expect(h.client.schedule.getHandle(scheduleId).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    const gone = await cli(['schedule', 'delete', scheduleId]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`no schedule "${scheduleId}"`);
    const after = await cliUntil(
      ['schedule', 'list', '--json'],
      (r) => !r.json().schedules.some((s: { scheduleId: string }) => s.scheduleId === scheduleId),
    );
    expect(after.json().schedules.map((s: { scheduleId: string }) => s.scheduleId)).not.toContain(scheduleId);
  });
});
