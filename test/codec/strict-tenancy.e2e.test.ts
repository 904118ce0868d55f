/**
 * The codec's strict mode on the tenants' own messages (docs/encryption.md, "Strict mode: refusing plaintext"): a
 * strict worker's ledger, gate and pipelines drop what arrives in plaintext, since every one of
 * their genuine senders encrypts. On the real dev server with the emulator over HTTP; one client
 * with the codec, one without (a namespace user without the keys).
 *
 * Before: a plaintext reserve naming a real running pipeline was counted (budget held by a
 * forgery), a plaintext `budget set` was applied, and a plaintext release freed a slot that
 * its holder still used, so a second pipeline ran past the tenant's concurrency.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { codecDataConverter, codecDataConverterOf, workerCodecFromEnv } from '../../src/codec';
import { ledgerId, ledgerQuery, periodOf, setBudgetUpdate, type LedgerView } from '../../src/contract/ledger';
import { resolveCreateUpdate, statusQuery } from '../../src/contract/messages';
import { gateStateQuery, gateWorkflowId, type GateState } from '../../src/contract/tenant-gate';
import type { PipelineDefinitionInput } from '../../src/definition/definition';
import { parseTenantsConfig } from '../../src/tenants/config';
import type { videoPipeline } from '../../src/workflows';
import { rejection, startHarness, waitForStatus, type Harness } from '../support/harness';
import { until } from '../support/poll';

const KEYS = { REELFLOW_CODEC_KEYS: `kid1:${randomBytes(32).toString('base64')}` };
// The worker's codec with no REELFLOW_CODEC_STRICT: strict, since a key is configured.
const WORKER_CONVERTER = codecDataConverterOf(workerCodecFromEnv(KEYS)!);
const tag = randomUUID().slice(0, 6);
const BUDGETED = `strict-budget-${tag}`;
const LIMITED = `strict-slot-${tag}`;
const config = parseTenantsConfig({
  prices: { generation: '1' },
  tenants: { [BUDGETED]: { budget: { period: 'day', amount: '5' } }, [LIMITED]: { concurrency: 1 } },
});

const waitingForOperator = (tenant: string): PipelineDefinitionInput => ({
  generation: { model: 'video-model-1', content: [{ type: 'text', text: 'strict tenancy test' }] },
  options: { archive: false, tenant, ambiguousCreate: { generation: 'ask' } },
});

let h: Harness;
let plain: Client;

beforeAll(async () => {
  h = await startHarness({
    dataConverter: codecDataConverter(KEYS),
    workerDataConverter: WORKER_CONVERTER,
    codecStrict: true,
    tenants: config,
  });
  plain = new Client({ connection: h.connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
});

afterAll(() => h?.close());

/** A pipeline of `tenant` that made an ambiguous create and waits for its operator (running, holding what it took). */
async function startWaiting(tenant: string): ReturnType<Harness['start']> {
  h.emulator.setFaults({ 'generation.create': { resetBeforeCreate: { next: 1 } } });
  const handle = await h.start(waitingForOperator(tenant));
  await waitForStatus(handle, (s) => s.state === 'waiting-operator');
  return handle;
}

async function abandon(handle: WorkflowHandle<typeof videoPipeline>): Promise<void> {
  await handle.executeUpdate(resolveCreateUpdate, { args: [{ decision: { abandon: true } }] });
  await rejection(handle.result(), WorkflowFailedError);
}

test('a strict ledger refuses a plaintext reserve, even one naming a real running pipeline, and a plaintext `budget set`', async () => {
  const p = await startWaiting(BUDGETED);
  const ledger = h.client.workflow.getHandle(ledgerId(BUDGETED, periodOf(Date.now(), 'day', 0)));
  const view = () => ledger.query(ledgerQuery);
  const before = await until('the pipeline has reserved', async () => {
    const v = await view().catch(() => undefined);
    return v && v.reserved > 0 && v;
  });
  const chain = { pipelineId: p.workflowId, firstRunId: p.firstExecutionRunId };
  const reserve = {
    chain,
    key: 'plan',
    creates: [{ kind: 'generation', count: 3 }],
    wait: false,
    answer: true,
    ask: 7,
  };
  await plain.workflow.getHandle(ledger.workflowId).signal('reserveSpendAsk', reserve);
  // And as a worker batches its asks: the list's plaintext mark is each ask's.
  await plain.workflow.getHandle(ledger.workflowId).signal('reserveSpendAsks', [reserve, { ...reserve, ask: 8 }]);
  const refused = await until('the plaintext reserves are refused', async () => {
    const v: LedgerView = await view();
    return v.refused >= before.refused + 3 && v;
  });
  expect(refused.refused).toBe(before.refused + 3);
  expect(refused).toMatchObject({ reserved: before.reserved, remaining: before.remaining });

  const raise = plain.workflow.getHandle(ledger.workflowId).executeUpdate(setBudgetUpdate, { args: [{ amount: 1e9 }] });
  await rejection(raise, Error);
  expect(await view()).toMatchObject({ budget: before.budget, remaining: before.remaining });
  // The encrypted client's `budget set` is taken.
  await ledger.executeUpdate(setBudgetUpdate, { args: [{ amount: 9_000_000 }] });
  expect((await view()).budget).toBe(9_000_000);
  await abandon(p);
});

test('a strict gate drops a plaintext release, and a strict pipeline a plaintext grant: the limit holds', async () => {
  const holder = await startWaiting(LIMITED);
  const creates = () => h.emulator.inspect().requests.filter((r) => r.endpoint === 'generation.create').length;
  const createsBefore = creates();
  const gate = h.client.workflow.getHandle(gateWorkflowId(LIMITED));
  const second = await h.start(waitingForOperator(LIMITED));
  const state = () => gate.query(gateStateQuery);
  await until('the second pipeline is queued', async () => (await state()).queue.length === 1);

  await plain.workflow.getHandle(gate.workflowId).signal('releaseSlot', { pipelineId: holder.workflowId });
  await plain.workflow.getHandle(second.workflowId).signal('slotGranted', { slot: 1, limit: 1 });
  // The gate handled both signals (a query answers after them), and nothing moved.
  const after: GateState = await state();
  expect(after.holders.map((x) => x.pipelineId)).toEqual([holder.workflowId]);
  expect(after.queue.map((x) => x.pipelineId)).toEqual([second.workflowId]);
  expect((await second.query(statusQuery)).state).toBe('queued');
  expect(creates()).toBe(createsBefore);

  // The holder's own release (encrypted, as it ends) lets the second one run.
  await abandon(holder);
  await waitForStatus(second, (s) => s.slot?.state === 'held');
  h.emulator.setFaults({});
  await second.terminate('test over');
});
