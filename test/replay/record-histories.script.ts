/**
 * Records the replay corpus of a release: run with `npm run record-histories` when the
 * release is cut. Not part of `npm test`. It writes test/replay/histories/v<package.json
 * version>/, one `<case>.json` per case and their workflow ids in `workflow-ids.json`, and
 * only ADDS files: a recorded history is never overwritten. Which folders must keep replaying
 * is the versioning policy's (docs/testing.md, "Replay").
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findTemporalCli } from '../../tools/devstack/temporal-cli';
import { parseDefinition } from '../../src/definition/definition';
import { startPipeline } from '../../src/starters/client/pipeline-client';
import { planRerun } from '../../src/starters/client/rerun';
import {
  outputsQuery,
  resolveCreateUpdate,
  vendorCallbackSignal,
  type AssetResult,
  type ReusedOutputs,
  type PipelineReuse,
} from '../../src/contract/messages';
import { gateWorkflowId } from '../../src/contract/tenant-gate';
import { parseTenantsConfig } from '../../src/tenants/config';
import { fullDefinition, startHarness, waitForStatus, WEBHOOK_SECRET } from '../support/harness';
import { startWebhookReceiver } from '../support/webhook-receiver';
import { ledgerId, ledgerQuery, periodOf } from '../../src/contract/ledger';
import { until } from '../support/poll';
import { setTenantBudget } from '../../src/starters/client/ledger';

const { version } = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string };
const OUT = path.join(__dirname, 'histories', `v${version}`);
mkdirSync(OUT, { recursive: true });
const IDS = path.join(OUT, 'workflow-ids.json');
/** file → the workflow id it ran under (replay needs it): those recorded before for this version, and this process's. */
const ids: Record<string, string> = existsSync(IDS)
  ? (JSON.parse(readFileSync(IDS, 'utf8')) as Record<string, string>)
  : {};

/** The Temporal CLI writes the canonical proto3 JSON that historyFromJSON reads. */
function save(name: string, workflowId: string, runId?: string): void {
  const file = `${name}.json`;
  if (existsSync(path.join(OUT, file))) {
    console.log(`kept ${file}: recorded histories are never overwritten`);
    return;
  }
  const cli = findTemporalCli(() => undefined)!.path;
  const args = [
    'workflow',
    'show',
    '--address',
    process.env.TEMPORAL_ADDRESS!,
    '-w',
    workflowId,
    ...(runId ? ['-r', runId] : []),
    '-o',
    'json',
  ];
  writeFileSync(path.join(OUT, file), execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  ids[file] = workflowId;
  // Ids of histories kept stay as they were; a new one is added.
  writeFileSync(IDS, `${JSON.stringify(ids, null, 2)}\n`);
}

test('record replay histories', async () => {
  const h = await startHarness({ callbacks: true, emulator: { profile: { generationRunningMs: 1_000 } } });
  try {
    // 1. All four stages with callbacks, one fault reconciled from a callback.
    h.emulator.setFaults({ 'erase.create': { error500AfterCreate: { next: 1 } } });
    const { handle: full } = await h.run(fullDefinition({ options: { callbacks: true } }));
    save('full', full.workflowId);

    // 1b. A raw rerun of it from erase with the outputs inline (asset URLs made stale): refused
    //     before any vendor call, naming reuse.fromRunId (outputs are read from the source run).
    const outputs = await full.query(outputsQuery);
    const fullRun = { pipelineId: full.workflowId, runId: (await full.describe()).runId };
    const plan = planRerun(fullRun, parseDefinition(outputs.definition), outputs.result, 'erase');
    const stale = (a: AssetResult) => ({ ...a, signedUrlFetchedAt: '2026-01-01T00:00:00.000Z' });
    const { review, assets, generation } = outputs.result;
    const inline: ReusedOutputs = {
      fromPipelineId: full.workflowId,
      review,
      assets: { ...assets!, items: assets!.items.map(stale) },
      generation,
    };
    const inlineRerun = await startPipeline(h.client, outputs.definition, {
      taskQueue: h.taskQueue,
      reuse: inline as unknown as PipelineReuse,
    });
    await inlineRerun.result().catch(() => undefined);
    save('rerun-inline', inlineRerun.workflowId);

    // 1c. The same rerun by run: the outputs read from the run it names.
    const rerun = await startPipeline(h.client, outputs.definition, { taskQueue: h.taskQueue, reuse: plan.reuse });
    await rerun.result();
    save('rerun', rerun.workflowId);

    // 2. An ambiguous paid create resolved by the operator Update: an unknown task id first,
    //    refused by the proof (TaskIdRefused, the wait goes on), then the real one, proven.
    h.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
    const ask = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'ask' }] },
      options: { archive: false },
    });
    await waitForStatus(ask, (s) => s.state === 'waiting-operator');
    const [task] = h.emulator.inspect().generationTasks.slice(-1);
    const bogus = ask.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: 'cgt-unknown' } }] });
    if (
      await bogus.then(
        () => true,
        () => false,
      )
    )
      throw new Error('"ask": an unknown task id was accepted');
    await ask.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: task.id } }] });
    await ask.result();
    save('ask', ask.workflowId);

    // 3. A cancelled pipeline.
    h.emulator.setFaults({});
    const cancelled = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'cancel' }] },
      erase: true,
    });
    await waitForStatus(cancelled, (s) => s.vendorTasks.length > 0);
    await cancelled.cancel();
    await cancelled.result().catch(() => undefined);
    save('cancelled', cancelled.workflowId);

    // 4. A pipeline that continued as new while polling: its first run ends in ContinuedAsNew.
    //    Nine unknown-state polls: with queries as local activities a poll adds ~6 events, not ~11.
    h.emulator.setFaults({ 'generation.create': { unknownState: { next: 1, state: 'running', queries: 9 } } });
    const long = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'long' }] },
      options: { archive: false, historyEventsBeforeContinueAsNew: 50 },
    });
    const firstRunId = long.firstExecutionRunId;
    await long.result();
    const longFirst = await h.client.workflow.getHandle(long.workflowId, firstRunId).describe();
    if (longFirst.status.name !== 'CONTINUED_AS_NEW')
      throw new Error('"continued" did not continue as new: poll longer');
    save('continued', long.workflowId, firstRunId);

    // 5. A pipeline that continued as new during an operator wait (signals grew its history):
    //    its second run resumes the wait (no second callback grace) and takes the operator's decision.
    h.emulator.setFaults({
      'generation.create': { resetAfterCreate: { next: 1 } },
      'generation.callback': { callbackDrop: { probability: 1 } },
    });
    const waited = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'waited' }] },
      options: {
        archive: false,
        callbacks: true,
        deadlines: { callbackGrace: '1s' },
        historyEventsBeforeContinueAsNew: 50,
      },
    });
    await waitForStatus(waited, (s) => s.state === 'waiting-operator');
    const firstRun = (await waited.describe()).runId;
    let secondRun = firstRun;
    while (secondRun === firstRun) {
      await waited.signal(vendorCallbackSignal, { step: 'padding', attempt: 0 });
      secondRun = (await waited.describe()).runId;
    }
    await waitForStatus(waited, (s) => s.state === 'waiting-operator');
    const [waitedTask] = h.emulator.inspect().generationTasks.slice(-1);
    await waited.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: waitedTask.id } }] });
    await waited.result();
    save('waited', waited.workflowId, secondRun);

    // 5b. Forged offers after an ambiguous create (callback URLs bound to the run): the two
    //     refused ids are checked a second apart (a timer), then the genuine task's offer passes.
    h.emulator.setFaults({
      'generation.create': { error500AfterCreate: { next: 1 } },
      'generation.callback': { callbackDrop: { probability: 1 } },
    });
    const forged = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'forged' }] },
      options: { archive: false, callbacks: true, deadlines: { callbackGrace: '60s' } },
    });
    while (!h.emulator.inspect().requests.some((r) => r.endpoint === 'generation.create' && r.status === 500))
      await new Promise((r) => setTimeout(r, 200));
    const [forgedTask] = h.emulator.inspect().generationTasks.slice(-1);
    h.emulator.setFaults({});
    for (const taskId of ['cgt-forged-a', 'cgt-forged-b', forgedTask.id]) {
      const run = forged.firstExecutionRunId;
      await forged.signal(vendorCallbackSignal, { step: 'generation', attempt: 1, taskId, status: 'queued', run });
    }
    await forged.result();
    save('forged', forged.workflowId);
  } finally {
    await h.close();
  }
});

// `npm run record-histories -- -t notify` records this case alone.
test('record replay histories: notify', async () => {
  const receiver = await startWebhookReceiver(WEBHOOK_SECRET);
  const h = await startHarness({
    emulator: { profile: { generationRunningMs: 1_000 } },
    notify: { profileUrls: [`${new URL(receiver.url).origin}/`] },
  });
  try {
    // 6. Webhooks: an operator wait, then the completion; each delivery answered 500 once, then 200.
    h.emulator.setFaults({ 'generation.create': { resetAfterCreate: { next: 1 } } });
    const notify = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'notify' }] },
      options: { archive: false, notify: { url: receiver.url } },
    });
    await waitForStatus(notify, (s) => s.state === 'waiting-operator');
    const [task] = h.emulator.inspect().generationTasks.slice(-1);
    await notify.executeUpdate(resolveCreateUpdate, { args: [{ decision: { taskId: task.id } }] });
    await notify.result();
    const delivery = h.client.workflow.getHandle(`${notify.workflowId}/notify/ended`);
    await delivery.result();
    if (receiver.accepted.size !== 2) throw new Error(`expected 2 webhooks accepted, got ${receiver.accepted.size}`);
    save('notify', notify.workflowId);
    save('notify-delivery', delivery.workflowId);
    // 7. The delivery workflow started raw (no parent pipeline): refused before anything is signed.
    const forged = await h.client.workflow.start('notifyWebhook', {
      taskQueue: h.taskQueue,
      workflowId: `${notify.workflowId}/notify/forged`,
      args: [
        {
          url: receiver.url,
          webhookId: `${notify.workflowId}:forged`,
          profile: 'default',
          deliveryTimeoutMs: 60_000,
          event: {
            type: 'pipeline.completed',
            timestamp: new Date().toISOString(),
            data: { pipelineId: notify.workflowId, state: 'completed', stage: 'done' },
          },
        },
      ],
    });
    await forged.result().then(
      () => Promise.reject(new Error('a raw notifyWebhook start was delivered')),
      () => undefined,
    );
    save('notify-refused', forged.workflowId);
    // 8. A pipeline that fails in a stage: its PipelineFailed failure carries the stage, the
    //    vendor's code and its vendor tasks.
    h.emulator.setFaults({ 'erase.create': { upstream502: { next: 1 } } });
    const failed = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'fails at erase' }] },
      erase: true,
      options: { archive: false },
    });
    await failed.result().then(
      () => Promise.reject(new Error('an erase answered 502 completed')),
      () => undefined,
    );
    save('failed', failed.workflowId);
  } finally {
    await receiver.close();
    await h.close();
  }
});

// `npm run record-histories -- -t vendor-check` records this case alone.
test('record replay histories: vendor-check', async () => {
  // 8. The worker's start-up check of generation failed: the create is refused before any vendor call.
  const h = await startHarness({
    vendorCheckFailed: (_profile, iface) => (iface === 'generation' ? 'credentials refused (HTTP 401)' : undefined),
  });
  try {
    const refused = await h.start({
      generation: { model: 'video-model-1', content: [{ type: 'text', text: 'vendor check' }] },
      options: { archive: false },
    });
    await refused.result().then(
      () => Promise.reject(new Error('a create past a failed start-up check succeeded')),
      () => undefined,
    );
    save('vendor-check-failed', refused.workflowId);
  } finally {
    await h.close();
  }
});

// `npm run record-histories -- -t gate` records this case alone.
test('record replay histories: gate', async () => {
  // 9. A tenant concurrency limit of 1 (docs/tenants.md): the gate (started with a small history
  //    limit, so it continues as new), a pipeline that held the slot, one cancelled while queued,
  //    and a holder terminated (its slot swept) while the next one waited.
  const tenant = `rec-${Date.now().toString(36)}`;
  const tenants = parseTenantsConfig({ defaults: { concurrency: 1 }, tenants: { [tenant]: {} } });
  const h = await startHarness({ tenants, emulator: { profile: { generationRunningMs: 1_000 } } });
  const def = (text: string) => ({
    generation: { model: 'video-model-1', content: [{ type: 'text' as const, text }] },
    options: { archive: false, tenant },
  });
  try {
    const gate = await h.client.workflow.start('tenantGate', {
      workflowId: gateWorkflowId(tenant),
      taskQueue: h.taskQueue,
      args: [{ historyLimit: 40 }],
    });
    const held = await h.start(def('gated'));
    await waitForStatus(held, (s) => s.slot?.state === 'held');
    const queued = await h.start(def('queued then cancelled'));
    await waitForStatus(queued, (s) => s.state === 'queued');
    await queued.cancel();
    await queued.result().catch(() => undefined);
    await held.result();
    const terminated = await h.start(def('terminated holder'));
    await waitForStatus(terminated, (s) => s.slot?.state === 'held');
    const next = await h.start(def('after the sweep'));
    await terminated.terminate('recording: a holder that never releases');
    await next.result();
    const runs: string[] = [];
    for (let run: string | undefined = (await gate.describe()).runId; run;) {
      runs.unshift(run);
      const history = await h.client.workflow.getHandle(gate.workflowId, run).fetchHistory();
      run = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    }
    if (runs.length < 2) throw new Error('"gate" did not continue as new: lower its history limit');
    save('gated', held.workflowId);
    save('gated-cancelled', queued.workflowId);
    save('gate', gate.workflowId, runs[0]);
    save('gate-continued', gate.workflowId, runs[1]);
    await gate.terminate('recorded');
  } finally {
    await h.close();
  }
});

// `npm run record-histories -- -t budget` records this case alone.
test('record replay histories: budget', async () => {
  // 10. Spend budgets (docs/tenants.md): a pipeline of a tenant whose day budget covers one
  //    plan (a generation and an erase) waits (waiting-budget), goes on after `budget set`; its
  //    tenant's ledger (opened from the file, senders checked, reserves answered by signal,
  //    settles read from the pipelines' records, the budget Update, the waiter signalled); and
  //    the ledger's next run after a terminate, which reads the money of the run before it.
  const tenant = `replay-${Date.now().toString(36)}`;
  const file = {
    prices: { generation: '0.35' },
    tenants: { [tenant]: { budget: { period: 'day', amount: '0.350015' } } },
  };
  const config = parseTenantsConfig(file);
  const h = await startHarness({ emulator: { profile: { generationRunningMs: 1_000 } }, tenants: config });
  try {
    const def = {
      generation: { model: 'video-model-1', content: [{ type: 'text' as const, text: 'budget' }] },
      erase: true,
      options: { archive: false, tenant },
    };
    await h.run(def);
    const waiting = await h.start(def);
    await waitForStatus(waiting, (s) => s.state === 'waiting-budget');
    await setTenantBudget(h.client, config, { tenant, amount: 700_030, taskQueue: h.taskQueue });
    await waiting.result();
    save('budget-wait', waiting.workflowId);
    const id = ledgerId(tenant, periodOf(Date.now(), 'day', 0));
    const ledger = h.client.workflow.getHandle(id);
    await until('both settles read', async () => (await ledger.query(ledgerQuery)).spent === 700_030);
    save('ledger', id);
    await ledger.terminate('recorded: an operator terminates the ledger');
    await setTenantBudget(h.client, config, { tenant, amount: 1_050_045, taskQueue: h.taskQueue });
    await h.run(def);
    await until('the third settle read', async () => (await ledger.query(ledgerQuery)).spent === 1_050_045);
    save('ledger-reopened', id);
  } finally {
    await h.close();
  }
});

// `npm run record-histories -- -t "counted spend"` records this case alone.
test('record replay histories: counted spend', async () => {
  // 12. A tenant without a budget (docs/tenants.md, "Budgets"): its plan is counted in its
  //     ledger without waiting for an answer, and settled.
  const tenant = `replay-${Date.now().toString(36)}`;
  const config = parseTenantsConfig({ prices: { generation: '0.35' }, tenants: { [tenant]: {} } });
  const h = await startHarness({ emulator: { profile: { generationRunningMs: 1_000 } }, tenants: config });
  try {
    const { handle } = await h.run({
      generation: { model: 'video-model-1', content: [{ type: 'text' as const, text: 'counted' }] },
      erase: true,
      options: { archive: false, tenant },
    });
    save('spend-counted', handle.workflowId);
    save('ledger-counted', ledgerId(tenant, periodOf(Date.now(), 'month', 0)));
  } finally {
    await h.close();
  }
});

// `npm run record-histories -- -t "locals in turn"` records this case alone.
test('record replay histories: locals in turn', async () => {
  // 13. Local activities one at a time (PipelineRuntime.inTurn): a group search in
  //     two parallel asset items of a tenant's pipeline, both creates retried (a 429 and a lost
  //     answer).
  const tenant = `replay-${Date.now().toString(36)}`;
  const config = parseTenantsConfig({ prices: { asset: '0.01', generation: '0.35' }, tenants: { [tenant]: {} } });
  const h = await startHarness({ emulator: { profile: { generationRunningMs: 1_000 } }, tenants: config });
  try {
    h.emulator.setFaults({ 'assets.CreateAsset': { rateLimit429: { next: 1 }, resetAfterCreate: { next: 1 } } });
    const { handle } = await h.run(fullDefinition({ options: { archive: false, tenant } }));
    save('locals-in-turn', handle.workflowId);
  } finally {
    await h.close();
  }
});

// `npm run record-histories -- -t "assets by run"` records this case alone.
test('record replay histories: assets by run', async () => {
  // 14. Assets named by the first run's id: created without a
  //     listing; one create's answer lost after the asset exists, found by a search of the group.
  const h = await startHarness({ emulator: { profile: { generationRunningMs: 1_000 } } });
  try {
    h.emulator.setFaults({ 'assets.CreateAsset': { resetAfterCreate: { next: 1 } } });
    const { handle } = await h.run(fullDefinition({ options: { archive: false } }));
    save('assets-by-run', handle.workflowId);
  } finally {
    await h.close();
  }
});
