/**
 * `reelflow schedule pause|unpause|trigger|update` against the REAL dev server, with a real
 * worker on its own task queue and the vendor emulator (test/support/harness.ts): the runs a
 * schedule starts are real pipelines that complete, with the definition it had when they started.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TypedSearchAttributes } from '@temporalio/common';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { outputsQuery } from '../../src/contract/messages';
import { STAGE } from '../../src/contract/search-attributes';
import { cli } from '../support/cli';
import { startHarness, type Harness } from '../support/harness';
import { until } from '../support/poll';

jest.setTimeout(240_000);

const dir = mkdtempSync(path.join(os.tmpdir(), 'reelflow-schedule-ops-'));
function file(name: string, value: unknown): string {
  const f = path.join(dir, name);
  writeFileSync(f, typeof value === 'string' ? value : JSON.stringify(value));
  return f;
}

const definition = (name: string): PipelineDefinitionInput => ({
  name,
  generation: { model: 'video-model-1', content: [{ type: 'text', text: `${name}: a lighthouse at dusk` }] },
  options: { archive: false },
});

describe('operating a schedule through the CLI', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  /** The workflow ids of the runs the schedule has started, oldest first. */
  const runsOf = async (scheduleId: string) =>
    (await h.client.schedule.getHandle(scheduleId).describe()).info.recentActions.map(
      (a) => a.action.workflow.workflowId,
    );

  /** Waits for a run not in `seen`, then for its end: its definition's name and its stage at the end. */
  async function nextRun(scheduleId: string, seen: string[]) {
    const id = await until(
      'a new run of the schedule',
      async () => (await runsOf(scheduleId)).find((r) => !seen.includes(r)),
      { timeoutMs: 90_000 },
    );
    const run = h.client.workflow.getHandle(id);
    await run.result();
    const outputs = await run.query(outputsQuery);
    return { id, name: outputs.definition.name, stage: (await run.describe()).typedSearchAttributes.get(STAGE) };
  }

  test('pause, trigger while paused, update the definition, spec and overlap, unpause', async () => {
    const scheduleId = `so-${randomUUID().slice(0, 8)}`;
    const created = await cli([
      ...['schedule', 'create', scheduleId, file(`${scheduleId}-a.json`, definition('first'))],
      ...['--cron', '0 3 1 1 *', '--task-queue', h.taskQueue],
    ]);
    expect(created.code).toBe(0);
    try {
      const paused = await cli(['schedule', 'pause', scheduleId, '--note', 'vendor maintenance', '--json']);
      expect(paused.code).toBe(0);
      expect(paused.json()).toMatchObject({ scheduleId, paused: true, note: 'vendor maintenance', overlap: 'skip' });

      // Paused, a trigger still starts a run now: a real pipeline of the first definition.
      const triggered = await cli(['schedule', 'trigger', scheduleId, '--json']);
      expect(triggered.code).toBe(0);
      expect(triggered.json()).toEqual({ scheduleId, overlap: 'skip', runningBefore: [] });
      const first = await nextRun(scheduleId, []);
      expect(first).toMatchObject({ name: 'first', stage: 'done' });
      expect(first.id).toMatch(new RegExp(`^${scheduleId}-`));

      // A bad cron expression (the server's check) or definition changes nothing.
      const badCron = await cli(['schedule', 'update', scheduleId, '--cron', '61 * * * *', '--json']);
      expect(badCron.code).toBe(2);
      expect(badCron.json().error).toMatchObject({ kind: 'usage', option: '--cron' });
      const badDef = await cli(['schedule', 'update', scheduleId, file('bad.json', '{"generation":{}}')]);
      expect(badDef.code).toBe(2);
      expect(badDef.stderr).toContain('generation.model');

      const updated = await cli([
        ...['schedule', 'update', scheduleId, file(`${scheduleId}-b.json`, definition('second'))],
        ...['--every', '2s', '--overlap', 'buffer-one', '--json'],
      ]);
      expect(updated.code).toBe(0);
      expect(updated.json()).toMatchObject({
        scheduleId,
        spec: 'every 2s',
        overlap: 'buffer-one',
        paused: true, // an update leaves the pause as it was
        note: 'vendor maintenance',
        taskQueue: h.taskQueue,
        workflowIdPrefix: scheduleId,
        changed: ['definition', 'spec', 'overlap'],
      });

      const unpaused = await cli(['schedule', 'unpause', scheduleId, '--json']);
      expect(unpaused.code).toBe(0);
      expect(unpaused.json()).toMatchObject({ scheduleId, paused: false, spec: 'every 2s' });
      const second = await nextRun(scheduleId, [first.id]);
      expect(second).toMatchObject({ name: 'second', stage: 'done' });

      // Only the spec: the definition, queue and overlap stay, and list says what was asked for.
      const cron = await cli(['schedule', 'update', scheduleId, '--cron', '0 4 * * *']);
      expect(cron.code).toBe(0);
      expect(cron.stdout).toContain(`updated schedule ${scheduleId} (spec): cron 0 4 * * *, overlap buffer-one`);
      const d = await h.client.schedule.getHandle(scheduleId).describe();
      expect(d.spec.intervals).toEqual([]);
      expect(d.action).toMatchObject({ workflowType: 'videoPipeline', taskQueue: h.taskQueue });
      expect((d.action.args as [{ definition: PipelineDefinitionInput }])[0].definition.name).toBe('second');
      expect(d.action.staticSummary).toMatch(/^second: /);
      expect((d.action.typedSearchAttributes as TypedSearchAttributes).get(STAGE)).toBe('generation');
      const listed = await until('the schedule listed with its new spec', async () => {
        const r = await cli(['schedule', 'list', '--json']);
        const s = (r.json().schedules as { scheduleId: string; spec: string }[]).find(
          (x) => x.scheduleId === scheduleId,
        );
        return s?.spec === 'cron 0 4 * * *' ? s : undefined;
      });
      expect(listed).toMatchObject({ overlap: 'buffer-one', paused: false, workflowIdPrefix: scheduleId });
    } finally {
      await h.client.schedule
        .getHandle(scheduleId)
        .delete()
        .catch(() => undefined);
    }
  });

  test('usage errors name the option; a missing schedule or one of other workflows is refused', async () => {
    const missing = await cli(['schedule', 'pause', `nope-${randomUUID().slice(0, 8)}`, '--json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no schedule "nope-\w+" in this namespace/);
    expect(missing.json().error).toMatchObject({ kind: 'error' });

    const cases: [string[], string][] = [
      [['schedule', 'update', 's1'], '<file>'],
      [['schedule', 'update', 's1', '--cron', '0 * * * *', '--every', '1h'], '--every'],
      [['schedule', 'update', 's1', '--every', '0s'], '--every'],
      [['schedule', 'update', 's1', '--overlap', 'sometimes'], '--overlap'],
      [['schedule', 'update', 's 1', '--every', '1h'], '<schedule-id>'],
      [['schedule', 'update', 's1', '--id-prefix', 'a b'], '--id-prefix'],
      [['schedule', 'trigger', 's1', '--overlap', 'nope'], '--overlap'],
      [['schedule', 'pause'], '<schedule-id>'],
      [['schedule', 'unpause', 's1', 's2'], '<schedule-id>'],
    ];
    for (const [argv, option] of cases) {
      const r = await cli([...argv, '--json']);
      expect({ argv, code: r.code, option: r.json().error.option }).toEqual({ argv, code: 2, option });
    }

    const otherId = `other-${randomUUID().slice(0, 8)}`;
    await h.client.schedule.create({
      scheduleId: otherId,
      spec: { intervals: [{ every: '1h' }] },
      state: { paused: true },
      action: { type: 'startWorkflow', workflowType: 'somethingElse', taskQueue: h.taskQueue, args: [] },
    });
    try {
      for (const verb of ['pause', 'unpause', 'trigger']) {
        const r = await cli(['schedule', verb, otherId]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`schedule "${otherId}" starts somethingElse workflows, not reelflow pipelines`);
      }
      const r = await cli(['schedule', 'update', otherId, '--every', '5m']);
      expect(r.code).toBe(1);
      const d = await h.client.schedule.getHandle(otherId).describe();
      expect(d.spec.intervals?.map((i) => i.every)).toEqual([3_600_000]);
      expect(d.state.paused).toBe(true);
    } finally {
      await h.client.schedule.getHandle(otherId).delete();
    }
  });
});
