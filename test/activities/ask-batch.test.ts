/**
 * The batcher a worker's asks to a ledger go through (src/activities/ask-batch.ts), against the
 * real dev server. The ledger id is started on a queue no worker polls, so its history shows
 * exactly the signals that reached it. End to end, a burst of pipelines is in
 * test/tenants/budget.e2e.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { devServerClient } from '../support/dev-client';
import { AskBatcher, BATCH_WINDOW_MS } from '../../src/activities/ask-batch';
import { until } from '../support/poll';
import {
  LEDGER_WORKFLOW,
  MAX_ASKS_PER_SIGNAL,
  ledgerId,
  ledgerStartOptions,
  type ReserveRequest,
} from '../../src/contract/ledger';

const dev = devServerClient();

const askOf = (n: number): ReserveRequest => ({
  chain: { pipelineId: `p-${n}`, firstRunId: randomUUID() },
  key: 'plan',
  creates: [{ kind: 'generation', count: 1 }],
  wait: false,
  answer: false,
  pull: true,
  ask: 1,
});

/** Each signal the ledger id received: its name and the asks it carried. */
async function signalsAt(id: string): Promise<{ name: string; asks: ReserveRequest[] }[]> {
  const events = (await dev.client.workflow.getHandle(id).fetchHistory()).events ?? [];
  return events.flatMap((e) => {
    const signal = e.workflowExecutionSignaledEventAttributes;
    const payload = signal?.input?.payloads?.[0];
    if (!signal || !payload) return [];
    const arg = defaultPayloadConverter.fromPayload<ReserveRequest | ReserveRequest[]>(payload);
    return [{ name: signal.signalName!, asks: Array.isArray(arg) ? arg : [arg] }];
  });
}

/** Once `count` asks have reached the ledger id: each signal's name and the pipeline ids it carried. */
function signalled(id: string, count: number) {
  return until(`${count} asks at ${id}`, async () => {
    const got = await signalsAt(id).catch(() => []);
    const asks = got.reduce((n, s) => n + s.asks.length, 0);
    return asks === count && got.map((s) => [s.name, s.asks.map((a) => a.chain.pipelineId)]);
  });
}

function routeTo(client = dev.client) {
  const tenant = `ask-batch-${randomUUID().slice(0, 8)}`;
  const route = { client, tenant, period: '2026-12', taskQueue: `nobody-${randomUUID()}` };
  return { route, id: ledgerId(tenant, route.period) };
}

afterEach(async () => {
  for await (const w of dev.client.workflow.list({ query: `WorkflowId STARTS_WITH 'reelflow-ledger/ask-batch-'` }))
    if (w.status.name === 'RUNNING') await dev.client.workflow.getHandle(w.workflowId).terminate('test done');
});

const pids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `p-${from + i}`);

test('plan asks enqueued at once reach a new ledger in one signal, in order; past the bound, in the next', async () => {
  const { route, id } = routeTo();
  const batcher = new AskBatcher();
  for (let i = 0; i < MAX_ASKS_PER_SIGNAL + 3; i++) batcher.enqueue(route, askOf(i));
  expect(await signalled(id, MAX_ASKS_PER_SIGNAL + 3)).toEqual([
    ['reserveSpendAsks', pids(0, MAX_ASKS_PER_SIGNAL)],
    ['reserveSpendAsks', pids(MAX_ASKS_PER_SIGNAL, MAX_ASKS_PER_SIGNAL + 3)],
  ]);
});

test('an ask enqueued within the window waits for it; one enqueued after the signal goes in the next', async () => {
  const { route, id } = routeTo();
  const batcher = new AskBatcher();
  batcher.enqueue(route, askOf(0));
  await new Promise((r) => setTimeout(r, BATCH_WINDOW_MS / 5)); // a later pipeline's check, inside the window
  batcher.enqueue(route, askOf(1));
  await signalled(id, 2);
  batcher.enqueue(route, askOf(2));
  batcher.enqueue(route, askOf(3));
  expect(await signalled(id, 4)).toEqual([
    ['reserveSpendAsks', ['p-0', 'p-1']],
    ['reserveSpendAsks', ['p-2', 'p-3']],
  ]);
});

test('a ledger run that does not say it takes batches (here: no worker answers it) gets each ask alone', async () => {
  const { route, id } = routeTo();
  await dev.client.workflow.start(LEDGER_WORKFLOW, {
    ...ledgerStartOptions(route.tenant, route.period, route.taskQueue),
  });
  const batcher = new AskBatcher();
  [0, 1, 2].forEach((i) => batcher.enqueue(route, askOf(i)));
  expect(await signalled(id, 3)).toEqual([
    ['reserveSpendAsk', ['p-0']],
    ['reserveSpendAsk', ['p-1']],
    ['reserveSpendAsk', ['p-2']],
  ]);
});
