/**
 * Records the histories the replay tests replay: run with `npm run record-histories`
 * after a deliberate, compatible workflow change (and review the diff). Not part of
 * `npm test`: committed histories are the point — they stand for pipelines already
 * running in production when a new worker version is deployed.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { findTemporalCli } from '../../src/devstack/temporal-cli';
import { childWorkflowId, resolveCreateUpdate, statusQuery, type StageName } from '../../src/workflows/messages';
import { fullDefinition, startHarness, type Harness } from '../workflows/harness';

const OUT = path.join(__dirname, 'histories');
/** file → the workflow id it ran under (child ids derive from it, so replay needs it). */
const ids: Record<string, string> = {};

/** The Temporal CLI writes the canonical proto3 JSON that historyFromJSON reads. */
async function save(_h: Harness, name: string, workflowId: string) {
  const cli = findTemporalCli(() => undefined)!.path;
  const json = execFileSync(cli, ['workflow', 'show', '--address', process.env.TEMPORAL_ADDRESS!, '-w', workflowId, '-o', 'json'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  writeFileSync(path.join(OUT, `${name}.json`), json);
  ids[`${name}.json`] = workflowId;
}

async function saveAll(h: Harness, prefix: string, workflowId: string, stages: StageName[]) {
  await save(h, `${prefix}.videoPipeline`, workflowId);
  for (const s of stages) await save(h, `${prefix}.${s}Stage`, childWorkflowId(workflowId, s));
}

test('record replay histories', async () => {
  const h = await startHarness({ callbacks: true, emulator: { profile: { generationRunningMs: 1_000 } } });
  try {
    // 1. All four stages with callbacks, one fault reconciled from a callback.
    h.emulator.setFaults({ 'erase.create': { error500AfterCreate: { next: 1 } } });
    const { handle: full } = await h.run(fullDefinition({ options: { callbacks: true } }));
    await saveAll(h, 'full', full.workflowId, ['review', 'assets', 'generation', 'erase']);

    // 2. An ambiguous paid create resolved by the operator Update.
    h.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
    const ask = await h.start({ generation: { model: 'video-model-1', content: [{ type: 'text', text: 'ask' }] }, options: { archive: false } });
    for (;;) {
      if ((await ask.query(statusQuery)).state === 'waiting-operator') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const [task] = h.emulator.inspect().generationTasks.slice(-1);
    await ask.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: task.id } }] });
    await ask.result();
    await saveAll(h, 'ask', ask.workflowId, ['generation']);

    // 3. A cancelled pipeline.
    h.emulator.setFaults({});
    const cancelled = await h.start({ generation: { model: 'video-model-1', content: [{ type: 'text', text: 'cancel' }] }, erase: true });
    for (;;) {
      if ((await cancelled.query(statusQuery)).vendorTasks.length > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await cancelled.cancel();
    await cancelled.result().catch(() => undefined);
    await saveAll(h, 'cancelled', cancelled.workflowId, ['generation']);
    writeFileSync(path.join(OUT, 'workflow-ids.json'), `${JSON.stringify(ids, null, 2)}\n`);
  } finally {
    await h.close();
  }
});
