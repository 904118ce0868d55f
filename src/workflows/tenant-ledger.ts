/**
 * tenantLedger: the spend of one tenant in one budget period (docs/tenants.md, "Budgets").
 * Pipelines reserve by signal (signal-with-start, from the askSpend activity) before each
 * paid create and are answered by signal; pipelines recorded before that reserve by Update.
 * They confirm or release by signal once the create's outcome is known. It never
 * ends on its own: a past period stays open and idle (no timer, no task), so `reelflow
 * usage` reads it by query. Past its history limit it continues as new with its carry.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  metricMeter,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { ReelflowActivities } from '../activities';
import {
  budgetRaisedSignal,
  ledgerQuery,
  reserveSignal,
  reserveUpdate,
  setBudgetUpdate,
  settleSignal,
  spendAnsweredSignal,
  type LedgerCarry,
  type LedgerInput,
  periodOf,
} from '../contract/ledger';
import { METRICS } from '../metrics/names';
import { budgetOf, emptyCarry, reserve, reservedOf, settle, spentOf, viewOf } from './lib/ledger-book';

/** Continue as new past this many events: a reserve and its answer, or a settle, are ~3 events each. */
const LEDGER_HISTORY_LIMIT = 5_000;

const inheriting = proxyLocalActivities<ReelflowActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3 },
});

export async function tenantLedger(input: LedgerInput): Promise<void> {
  let c: LedgerCarry | undefined = input.carry;
  const ready = () => c !== undefined;
  setHandler(ledgerQuery, () => viewOf(input, c ?? emptyCarry(input)));
  setHandler(reserveUpdate, async (req) => {
    await condition(ready);
    c!.configured = true; // only a worker reserves, with its configuration's tenant
    const answer = reserve(c!, req, new Date().toISOString());
    gauge(input, c!);
    return answer;
  });
  setHandler(reserveSignal, async (req) => {
    await condition(ready);
    c!.configured = true;
    const answer = reserve(c!, req, new Date().toISOString());
    gauge(input, c!);
    if (req.answer === false) return;
    // A closed pipeline needs no answer; a live one asks again if this is lost.
    await getExternalWorkflowHandle(req.pipelineId)
      .signal(spendAnsweredSignal, { ...answer, key: req.key, ask: req.ask ?? 0 })
      .catch(() => undefined);
  });
  setHandler(settleSignal, async (msg) => {
    await condition(ready);
    const done = settle(c!, msg);
    if (done?.confirmed) spend(input, c!, done.confirmed);
    gauge(input, c!);
    // Released budget may let a waiting pipeline go on.
    if (done && msg.outcome === 'release') await wakeWaiters(c!);
  });
  setHandler(setBudgetUpdate, async ({ amount }) => {
    await condition(ready);
    c!.override = amount;
    gauge(input, c!);
    await wakeWaiters(c!);
    return viewOf(input, c!);
  });
  // A new period starts from the previous period's `budget set`, if any; else the configuration.
  c ??= emptyCarry(input, await inheriting.previousLedgerBudget(input));
  gauge(input, c);
  const info = workflowInfo;
  await condition(() => info().continueAsNewSuggested || info().historyLength > LEDGER_HISTORY_LIMIT);
  await condition(allHandlersFinished);
  const { carry: _old, ...rest } = input;
  await continueAsNew<typeof tenantLedger>({ ...rest, carry: c });
}

/** Signals every waiting pipeline once; each reserves again (a closed one is skipped). */
async function wakeWaiters(c: LedgerCarry): Promise<void> {
  const waiters = c.waiters;
  c.waiters = [];
  await Promise.all(
    waiters.map((id) =>
      getExternalWorkflowHandle(id)
        .signal(budgetRaisedSignal)
        .catch(() => undefined),
    ),
  );
}

/** Only ledgers a worker started from its configuration label metrics: the tenants are bounded. */
function spend(input: LedgerInput, c: LedgerCarry, confirmed: { kind: string; amount: number }): void {
  if (!c.configured) return;
  const m = METRICS.spend;
  metricMeter
    .createCounter(m.name, undefined, m.help)
    .add(confirmed.amount, { tenant: input.tenant, kind: confirmed.kind });
}

function gauge(input: LedgerInput, c: LedgerCarry): void {
  const budget = budgetOf(c);
  // A past period's late settle must not overwrite the current period's value.
  const current = periodOf(Date.now(), input.period.length === 7 ? 'month' : 'day', input.utcOffsetMinutes);
  if (!c.configured || budget === undefined || current !== input.period) return;
  const m = METRICS.budgetRemaining;
  metricMeter
    .createGauge(m.name, 'int', undefined, m.help)
    .set(budget - spentOf(c) - reservedOf(c), { tenant: input.tenant });
}
