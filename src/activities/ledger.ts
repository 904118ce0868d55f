/**
 * The spend ledger's activities (docs/tenants.md, "Budgets"). A pipeline asks by
 * signal-with-start (a workflow cannot; the period's first ask starts its ledger). A ledger
 * opens by reading its terms from this worker's tenants file and its state from its own
 * earlier runs, checks each new sender against the server, and reads what an ended pipeline
 * spent from the pipeline's own record: nothing a message says is taken on trust.
 */
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import {
  LEDGER_WORKFLOW,
  SPEND_MEMO,
  budgetRaisedSignal,
  ledgerId,
  ledgerStartOptions,
  parseLedgerId,
  periodEndMs,
  periodKindOf,
  periodOf,
  previousPeriod,
  reserveSignal,
  settleSignal,
  spendAnsweredSignal,
  type LedgerOpening,
  type LedgerTerms,
  type ReserveRequest,
  type RunChain,
  type SettleHint,
  type SpenderNote,
  type SpendRecord,
} from '../contract/ledger';
import { statusQuery } from '../contract/messages';
import { TENANT } from '../contract/search-attributes';
import type { BudgetPeriod } from '../contract/tenancy';
import { priceTable, type TenantsConfig } from '../tenants/config';
import { readLedger } from '../tenants/ledger-read';
import { workerAsks, type AskBatcher } from './ask-batch';
import { describeChainEnd } from './chain-runs';
import { TenantIdSchema } from '../definition/schema';

/** The workflow type of a pipeline: only a pipeline spends. */
const PIPELINE_TYPE = 'videoPipeline';

export interface AskSpendInput {
  tenant: string;
  /** The tenant's period kind and clock, from the pipeline's recorded policy. */
  periodKind: BudgetPeriod;
  utcOffsetMinutes: number;
  request: ReserveRequest;
}

/** Which ledger was asked: taken from the activity's clock and recorded, so a replay asks the same one. */
export interface AskedLedger {
  ledgerId: string;
  period: string;
  periodEndMs: number;
}

/**
 * A reserve by signal-with-start (the period's first ask starts its ledger), on this activity's
 * clock. `soon`: a plan ask whose grant its create reads, batched with the others this worker
 * makes to the same ledger and not waited for (ask-batch.ts).
 */
export async function askLedger(
  client: Client,
  taskQueue: string,
  input: AskSpendInput,
  { batcher = workerAsks, soon = false }: { batcher?: AskBatcher; soon?: boolean } = {},
): Promise<AskedLedger> {
  const { tenant, periodKind, utcOffsetMinutes, request } = input;
  const period = periodOf(Date.now(), periodKind, utcOffsetMinutes);
  if (soon) batcher.enqueue({ client, tenant, period, taskQueue }, request);
  else
    await client.workflow.signalWithStart(LEDGER_WORKFLOW, {
      ...ledgerStartOptions(tenant, period, taskQueue),
      signal: reserveSignal,
      signalArgs: [request],
    });
  return { ledgerId: ledgerId(tenant, period), period, periodEndMs: periodEndMs(period, utcOffsetMinutes) };
}

/** The tenant's terms in this worker's file; unknown when the file lacks the tenant or reserves per another period. */
export function termsOf(config: TenantsConfig | undefined, tenant: string, period: string): LedgerTerms {
  const prices = config ? priceTable(config) : { review: 0, assetGroup: 0, asset: 0, generation: 0, erase: 0 };
  const limits =
    config && Object.hasOwn(config.tenants, tenant) ? { ...config.defaults, ...config.tenants[tenant] } : undefined;
  const kind = limits?.budget?.period ?? 'month';
  return {
    known: limits !== undefined && periodKindOf(period) === kind,
    currency: config?.currency ?? 'CNY',
    utcOffsetMinutes: config?.utcOffset ?? 0,
    ...(limits?.budget ? { budget: limits.budget.amount } : {}),
    prices,
  };
}

/** The pipeline's own spend record, when it wrote one (a memo set at start cannot know the first run's id). */
function ownRecord(d: WorkflowExecutionDescription, chain: RunChain): SpendRecord | undefined {
  const record = d.memo?.[SPEND_MEMO] as SpendRecord | undefined;
  return record?.firstRunId === chain.firstRunId ? record : undefined;
}

/**
 * A pipeline of `tenant` whose chain starts at `firstRunId`: the server's word, and the
 * pipeline's own, once it has ended (a pipeline that waits for no answer may end first) its
 * record naming this ledger. While it runs on this ledger's task queue, the `ReelflowTenant`
 * search attribute its runtime upserts (docs/tenants.md) says so without a query; when that
 * is absent or names another tenant (a raw start may set it to anything), its status does.
 */
async function isTenantPipeline(
  client: Client,
  to: { tenant: string; ledger: string; taskQueue: string },
  chain: RunChain,
): Promise<boolean | null> {
  const d = await describeChainEnd(client, chain.pipelineId, chain.firstRunId);
  if (d?.type !== PIPELINE_TYPE) return false;
  if (d.status.name !== 'RUNNING') return ownRecord(d, chain)?.ledgers?.[to.ledger] !== undefined;
  if (d.taskQueue === to.taskQueue && d.typedSearchAttributes.get(TENANT) === to.tenant) return true;
  // A workflow no worker runs never answers: null (unknown), so a forgery cannot hold the ledger in retries.
  return client.workflow
    .getHandle(chain.pipelineId, d.runId)
    .query(statusQuery)
    .then(
      (status) => status.tenant === to.tenant,
      () => null,
    );
}

/** What a ledger reads of a chain's pipeline for a settle. */
export interface SpendRead {
  /** The chain's pipeline has ended (or recorded its spend): a settle of it may be applied. */
  ended: boolean;
  /** The server knows this chain: a pipeline whose first run is the one named. */
  seen: boolean;
  record?: SpendRecord['ledgers'][string];
  /** When the chain's last run closed (epoch ms), once it has. */
  closedMs?: number;
}

/**
 * What the chain's pipeline recorded for this ledger as it ended; `ended: false` while it runs
 * without one. Read from the chain's own runs: its workflow id may already hold a newer pipeline.
 */
async function spendRecordOf(client: Client, ledger: string, chain: RunChain): Promise<SpendRead> {
  const d = await describeChainEnd(client, chain.pipelineId, chain.firstRunId);
  if (d?.type !== PIPELINE_TYPE) return { ended: true, seen: false };
  const closed = d.closeTime ? { closedMs: d.closeTime.getTime() } : {};
  const mine = ownRecord(d, chain)?.ledgers?.[ledger];
  if (mine) return { ended: true, seen: true, record: mine, ...closed };
  return { ended: d.status.name !== 'RUNNING', seen: true, ...closed };
}

/** A closed pipeline of the ledger's tenant, as visibility lists it, with its record for this ledger. */
export interface ClosedSpender {
  chain: RunChain;
  record: SpendRecord['ledgers'][string];
  closedMs: number;
  /** The row is the chain's first run itself: its record is the chain's own, with no read of the chain. */
  firstRun: boolean;
}

/** At most this many rows per listing (oldest first): the activity's result stays well under the payload limit. */
const LIST_MAX_ROWS = 2_000;

/**
 * The tenant's pipelines closed since `sinceMs` whose record names this ledger, oldest first:
 * the ledger settles from them without a signal (docs/tenants.md, "Budgets").
 */
async function closedSpenders(client: Client, ledger: string, tenant: string, sinceMs: number) {
  const query =
    `WorkflowType = '${PIPELINE_TYPE}' AND ${TENANT.name} = '${tenant}' ` +
    `AND ExecutionStatus != 'Running' AND ExecutionStatus != 'ContinuedAsNew' AND CloseTime >= '${new Date(sinceMs).toISOString()}'`;
  const rows: ClosedSpender[] = [];
  for await (const w of client.workflow.list({ query })) {
    const record = w.memo?.[SPEND_MEMO] as SpendRecord | undefined;
    const mine = typeof record?.firstRunId === 'string' ? record.ledgers?.[ledger] : undefined;
    if (!mine || !w.closeTime) continue;
    const chain = { pipelineId: w.workflowId, firstRunId: record!.firstRunId };
    rows.push({ chain, record: mine, closedMs: w.closeTime.getTime(), firstRun: w.runId === chain.firstRunId });
  }
  return rows.sort((a, b) => a.closedMs - b.closedMs).slice(0, LIST_MAX_ROWS);
}

/** At most this many signals in flight at once: a burst of 1000 answers does not flood the server. */
const TELL_CONCURRENCY = 32;

/** One note to its pipeline: an answer, or a wake-up (budget raised); a pipeline that has closed needs neither. */
async function tell(client: Client, note: SpenderNote): Promise<void> {
  const handle = client.workflow.getHandle(note.pipelineId);
  try {
    await (note.answer ? handle.signal(spendAnsweredSignal, note.answer) : handle.signal(budgetRaisedSignal));
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

/** A ledger's chosen wait before a read, at most 5 s (well inside the activity's timeout). */
async function pause(ms: number | undefined): Promise<void> {
  if (ms) await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 5_000)));
}

/** How long a settle waits for its pipeline to close: it settles in its last workflow task. */
const CLOSE_WAIT_MS = 15_000;

/** The chain's record; when its pipeline still runs without one, read again once it has closed (or the wait is over). */
async function settledRead(client: Client, ledger: string, chain: RunChain): Promise<SpendRead> {
  const first = await spendRecordOf(client, ledger, chain);
  if (first.ended) return first;
  // From the chain's first run, result() follows its continue-as-new links.
  const closed = client.workflow
    .getHandle(chain.pipelineId, chain.firstRunId)
    .result()
    .then(
      () => true,
      () => true,
    );
  const waited = await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), CLOSE_WAIT_MS))]);
  return waited ? spendRecordOf(client, ledger, chain) : first;
}

/** The ledger's state from its own earlier runs, else a new period inheriting the previous period's `budget set`. */
async function openingOf(
  client: Client,
  input: { ledgerId: string; runId: string; continuedFrom?: string },
  id: { tenant: string; period: string },
  terms: LedgerTerms,
): Promise<LedgerOpening> {
  const read = await readLedger(client, input.ledgerId, {
    exceptRunId: input.runId,
    ...(input.continuedFrom ? { continuedFrom: input.continuedFrom } : {}),
  });
  if (read.state || !terms.known) return { terms, ...(read.state ? { state: read.state } : {}), inbox: read.inbox };
  const previous = await readLedger(client, ledgerId(id.tenant, previousPeriod(id.period, terms.utcOffsetMinutes)));
  const inherited = previous.state?.override;
  return { terms, inbox: read.inbox, ...(inherited !== undefined ? { inheritedOverride: inherited } : {}) };
}

/** `codecStrict`: this worker's codec refuses plaintext; told to the ledger with its opening, so its replay does not depend on the worker. */
export function createLedgerActivities(tenants: TenantsConfig | undefined, codecStrict = false) {
  return {
    /** Asks the current period's ledger (on this activity's clock, recorded for replay). */
    askSpend: async (input: AskSpendInput): Promise<AskedLedger> => {
      const { client, info } = Context.current();
      return askLedger(client, info.taskQueue, input);
    },
    /** A settle for a ledger with no open run: signal-with-start, so its next run opens and reads it. */
    settleSpend: async ({ ledgerId: id, hint }: { ledgerId: string; hint: SettleHint }): Promise<void> => {
      const { client, info } = Context.current();
      const parsed = parseLedgerId(id);
      if (!parsed) return;
      await client.workflow.signalWithStart(LEDGER_WORKFLOW, {
        ...ledgerStartOptions(parsed.tenant, parsed.period, info.taskQueue),
        signal: settleSignal,
        signalArgs: [hint],
      });
    },
    openLedger: async (input: { ledgerId: string; runId: string; continuedFrom?: string }): Promise<LedgerOpening> => {
      const id = parseLedgerId(input.ledgerId) ?? { tenant: '', period: '' };
      const opening = await openingOf(Context.current().client, input, id, termsOf(tenants, id.tenant, id.period));
      return codecStrict ? { ...opening, codecStrict: true } : opening;
    },
    /**
     * Per chain: true (a running pipeline of this tenant), false (not one), null (its pipeline
     * did not answer: unknown, checked again at its next ask). `afterMs`: checked that long after
     * the activity starts; the asks that arrive meanwhile make the ledger's next batch.
     */
    verifySpendSenders: async (input: {
      tenant: string;
      ledgerId: string;
      chains: RunChain[];
      afterMs?: number;
    }): Promise<(boolean | null)[]> => {
      const { client, info } = Context.current();
      await pause(input.afterMs);
      const to = { tenant: input.tenant, ledger: input.ledgerId, taskQueue: info.taskQueue };
      return Promise.all(input.chains.map((c) => isTenantPipeline(client, to, c)));
    },
    /**
     * Each chain's record for this ledger; a pipeline still running is given a moment to close
     * (it settles as it ends). `wait: false` (a sweep): what the server shows now, without
     * waiting. `afterMs`: read that long after the activity starts, when the pipelines that
     * settled in their last workflow task have closed (one read each instead of three).
     */
    readSpendRecords: async ({
      ledgerId: id,
      chains,
      wait,
      afterMs,
    }: {
      ledgerId: string;
      chains: RunChain[];
      wait?: boolean;
      afterMs?: number;
    }) => {
      const { client } = Context.current();
      await pause(afterMs);
      const read = wait === false ? spendRecordOf : settledRead;
      return Promise.all(chains.map((c) => read(client, id, c)));
    },
    listClosedSpenders: async (input: { ledgerId: string; tenant: string; sinceMs: number }) => {
      if (!TenantIdSchema.safeParse(input.tenant).success) return []; // no quote can reach the query
      if (!Number.isFinite(input.sinceMs)) return [];
      return closedSpenders(Context.current().client, input.ledgerId, input.tenant, input.sinceMs);
    },
    /** The ledger's answers and wake-ups, signalled together (docs/tenants.md, "Budgets"): no event per signal in the ledger. */
    tellSpenders: async ({ notes }: { notes: SpenderNote[] }): Promise<void> => {
      const { client } = Context.current();
      for (let i = 0; i < notes.length; i += TELL_CONCURRENCY)
        await Promise.all(notes.slice(i, i + TELL_CONCURRENCY).map((n) => tell(client, n)));
    },
  };
}
