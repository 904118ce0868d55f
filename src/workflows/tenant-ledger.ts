/**
 * tenantLedger: the spend of one tenant in one budget period (docs/tenants.md, "Budgets").
 * It starts with no input: its tenant and period are its workflow id, its terms (budget,
 * prices, currency) come from the worker's tenants file and its state from its own earlier
 * runs, both read by its opening activity. Terminate it, reset it, raw-start it with any
 * input, or let it continue as new: the money is still there.
 *
 * Messages queue in an inbox and are handled in batches. A reserve is counted only from a
 * sender the server shows as a running pipeline of this tenant and run chain (checked once
 * per chain), priced here, and answered by signal (a batch's answers by one activity); a
 * settle is a hint, and what was spent is read from the ended pipeline's own record. A
 * pipeline that closed without settling (terminated) is found by a sweep and settled from
 * what the server shows. What fails a check is dropped and counted; nothing a message holds
 * can throw in this workflow's task.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  metricMeter,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { ReelflowActivities } from '../activities';
import { isPlaintext, markPlaintext } from '../codec/plaintext-mark';
import type { SpendRead } from '../activities/ledger';
import {
  LEDGER_SWEEP_BATCH,
  LEDGER_SWEEP_MS,
  MAX_ASKS_PER_SIGNAL,
  budgetRaisedSignal,
  chainKey,
  ledgerQuery,
  ledgerSnapshotQuery,
  parseLedgerId,
  periodKindOf,
  periodOf,
  reserveAsksSignal,
  reserveSignal,
  setBudgetUpdate,
  settleSignal,
  spendAnsweredSignal,
  spendAnswersQuery,
  takesAskBatchesQuery,
  type LedgerMessage,
  type LedgerState,
  type LedgerTerms,
  type PulledAnswer,
  type RunChain,
  type SpendAnswer,
  type SpenderNote,
} from '../contract/ledger';
import { MAX_AMOUNT_MINOR, fitsMoney } from '../contract/tenancy';
import { METRICS } from '../metrics/names';
import {
  budgetOf,
  chainOf,
  checkReserve,
  committedOf,
  emptyState,
  rememberSettled,
  reserve,
  settle,
  viewOf,
} from '../contract/ledger-book';

/** Continue as new past this many events: a reserve and its answer, or a settle, are a few events each. */
const LEDGER_HISTORY_LIMIT = 5_000;

/** Reading the server and the tenants file: retried until it answers (a busy server is not a refusal). */
const reading = proxyActivities<ReelflowActivities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', maximumInterval: '10s' },
});

/**
 * After 0.2.0 (docs/architecture.md, "Versioning"): a batch's senders are checked a moment
 * after they arrive, its answers go out by one activity (`tellSpenders`), not a signal command
 * each (two events apiece in this history, and a workflow task as each is confirmed), and
 * settles are read one batch at a time, a moment after they arrive. Asked once, before the
 * run's first command: a run that 0.2.0 started keeps 0.2.0's commands on replay.
 */
const BATCHED_IO_PATCH = 'ledger-batched-io';

/**
 * After 0.2.0: the ledger lists its tenant's pipelines closed since its last look (visibility;
 * their memo holds their record) and settles them, so a pipeline ends without a settle signal
 * (behaviour `spendInCheck`). Asked once per run, like BATCHED_IO_PATCH; an older run still
 * settles such a pipeline, by its sweep.
 */
const LISTS_CLOSED_PATCH = 'ledger-lists-closed';

/**
 * After 0.2.0: a worker's plan asks arrive together, as one `reserveAsksSignal`
 * (src/activities/ask-batch.ts). Asked once per run, like BATCHED_IO_PATCH: a run that a worker
 * without it may have handled leaves batches unread, so says so (`takesAskBatchesQuery`) and a
 * worker sends it each ask by a `reserveSignal` of its own.
 */
const ASK_BATCHES_PATCH = 'ledger-ask-batches';

/** The listing's spacing: this soon after it settled something, doubling while it finds nothing, up to the most. */
const LIST_EVERY_MS = { least: 2_000, most: 30_000 };

/**
 * A pipeline's close may reach visibility after a later one's (the cluster writes visibility
 * asynchronously): each listing looks this far behind the newest close it has seen.
 */
const LIST_OVERLAP_MS = 10_000;

/** Answers per `tellSpenders` activity: its input stays well under the server's payload limit. */
const NOTES_PER_TELL = 500;

/** A settle arrives in its pipeline's last workflow task: read this long after, the pipeline has closed. */
const SETTLE_READ_AFTER_MS = 1_000;

/**
 * Batched: senders are checked this long after their asks arrive, so a burst is checked (and
 * answered) in a few batches instead of one activity per ask or two.
 */
const SENDER_CHECK_AFTER_MS = 250;

/** Senders checked and refused in this run: a forgery repeated costs no further check. */
const MAX_REFUSED_KEPT = 1_000;

/** Refusals of pulled asks kept for their pipelines to read (a grant is read from the reservation itself). */
const MAX_PULLED_KEPT = 1_000;

/** Terms of a ledger whose opening has not answered yet: nothing is known, nothing is granted. */
const UNKNOWN_TERMS: LedgerTerms = {
  known: false,
  currency: '',
  utcOffsetMinutes: 0,
  prices: { review: 0, assetGroup: 0, asset: 0, generation: 0, erase: 0 },
};

interface Book {
  tenant: string;
  period: string;
  state: LedgerState;
  terms: LedgerTerms;
  refusedChains: Set<string>;
  settling: Set<string>;
  /** The opening said this worker's codec refuses plaintext: a plaintext message is a forgery (pipelines encrypt). */
  codecStrict: boolean;
  /** BATCHED_IO_PATCH: answers by activity, settles read a batch at a time. */
  batched: boolean;
  /** LISTS_CLOSED_PATCH: closed pipelines found by listing, not by their settle signal. */
  lists: boolean;
  /** Settles waiting for the read in flight to finish (batched): read together next. */
  settleQueue: Map<string, RunChain>;
  settleReading: boolean;
  /** Pulled asks refused (ReserveRequest.pull), by chain and key, until their pipeline reads them. */
  pulled: Map<string, SpendAnswer>;
}

export async function tenantLedger(): Promise<void> {
  const info = workflowInfo();
  const { tenant, period } = parseLedgerId(info.workflowId) ?? { tenant: '', period: '' };
  const inbox: LedgerMessage[] = [];
  const at: { book?: Book } = {}; // set once the ledger has opened
  setHandler(reserveSignal, (m: unknown) => void inbox.push({ reserve: m }));
  setHandler(settleSignal, (m: unknown) => void inbox.push({ settle: m }));
  setHandler(ledgerSnapshotQuery, () => ({
    ...(at.book ? { state: at.book.state, terms: at.book.terms } : {}),
    inbox: [...[...(at.book?.settling ?? [])].map((k) => ({ settle: { chain: chainFromKey(k) } })), ...inbox],
  }));
  setHandler(ledgerQuery, () =>
    viewOf(tenant, period, at.book?.state ?? emptyState(), at.book?.terms ?? UNKNOWN_TERMS),
  );
  setHandler(spendAnswersQuery, (asks: unknown) => pulledAnswers(at.book, asks));
  handleBudgetSet(at, tenant, period);
  const batched = patched(BATCHED_IO_PATCH); // before the first command
  const lists = patched(LISTS_CLOSED_PATCH);
  const takesBatches = patched(ASK_BATCHES_PATCH);
  if (takesBatches) setHandler(reserveAsksSignal, (m: unknown) => void inbox.push(...asksOf(m)));
  setHandler(takesAskBatchesQuery, () => takesBatches);
  const opened = await reading.openLedger({
    ledgerId: info.workflowId,
    runId: info.runId,
    ...(info.continuedFromExecutionRunId ? { continuedFrom: info.continuedFromExecutionRunId } : {}),
  });
  const state = opened.state ?? emptyState(opened.inheritedOverride);
  inbox.unshift(...opened.inbox);
  const book: Book = {
    tenant,
    period,
    state,
    terms: validTerms(period, opened.terms),
    refusedChains: new Set(),
    settling: new Set(),
    codecStrict: opened.codecStrict === true,
    batched,
    lists,
    settleQueue: new Map(),
    settleReading: false,
    pulled: new Map(),
  };
  at.book = book;
  gauge(book);
  void sweepLoop(book, inbox);
  if (lists) void listLoop(book);
  const due = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > LEDGER_HISTORY_LIMIT;
  for (;;) {
    await condition(() => inbox.length > 0 || due());
    if (inbox.length === 0) break;
    const batch = inbox.slice(0);
    await handleBatch(book, batch);
    inbox.splice(0, batch.length);
  }
  await condition(() => book.settling.size === 0 && allHandlersFinished());
  await continueAsNew<typeof tenantLedger>();
}

/**
 * A worker's batch of asks, each handled as if it came alone: a list that arrived in plaintext
 * passes its mark to each ask. Not a list, it is one message every check refuses; asks past
 * MAX_ASKS_PER_SIGNAL are dropped, and refused as one more.
 */
function asksOf(m: unknown): LedgerMessage[] {
  if (!Array.isArray(m)) return [{ reserve: m }];
  const plain = isPlaintext(m);
  const asks = m.slice(0, MAX_ASKS_PER_SIGNAL).map((r: unknown) => ({ reserve: plain ? markPlaintext(r) : r }));
  return m.length > MAX_ASKS_PER_SIGNAL ? [...asks, { reserve: undefined }] : asks;
}

/** `reelflow budget set`: applied once the ledger has opened; a plaintext one to a strict ledger is refused. */
function handleBudgetSet(at: { book?: Book }, tenant: string, period: string): void {
  setHandler(
    setBudgetUpdate,
    async (arg) => {
      await condition(() => at.book !== undefined);
      const b = at.book!;
      refusePlaintext(b, arg);
      b.state.override = arg.amount;
      gauge(b);
      await wakeWaiters(b);
      return viewOf(tenant, period, b.state, b.terms);
    },
    {
      validator: (arg: { amount: unknown }) => {
        if (at.book) refusePlaintext(at.book, arg);
        checkAmount(arg.amount);
      },
    },
  );
}

/** An ApplicationFailure: thrown in the handler too, it fails the Update, never the ledger's workflow task. */
function refusePlaintext(b: Book, arg: object): void {
  if (b.codecStrict && isPlaintext(arg))
    throw ApplicationFailure.nonRetryable(
      'budget set refused: it arrived in plaintext and this worker refuses plaintext (REELFLOW_CODEC_STRICT)',
    );
}

function checkAmount(amount: unknown): void {
  if (typeof amount !== 'number' || !fitsMoney(amount))
    throw new Error(`amount: must be whole minor units from 0 to ${MAX_AMOUNT_MINOR}`);
}

/** Terms for a period of another kind than the tenant's are unknown: a forged ledger id grants nothing. */
function validTerms(period: string, t: LedgerTerms): LedgerTerms {
  return t.known && periodKindOf(period) !== undefined ? t : { ...t, known: false };
}

/**
 * While it holds reservations, every LEDGER_SWEEP_MS: the chains reserved that long ago whose
 * pipeline closed that long ago without a settle (a terminate loses its last step) are
 * settled from what the server shows; a terminated pipeline has no record, so what it held
 * becomes unresolved, and no reservation stays held past its pipeline.
 */
async function sweepLoop(b: Book, inbox: LedgerMessage[]): Promise<void> {
  for (;;) {
    await condition(() => Object.keys(b.state.chains).length > 0);
    await sleep(LEDGER_SWEEP_MS);
    const before = Date.now() - LEDGER_SWEEP_MS;
    const hinted = new Set(
      inbox.map((m) => ('settle' in m ? chainOf(m.settle) : undefined)).map((c) => c && chainKey(c)),
    );
    const stale = Object.entries(b.state.chains)
      .filter(([key, r]) => !b.settling.has(key) && !hinted.has(key) && Date.parse(r.since) <= before)
      .slice(0, LEDGER_SWEEP_BATCH)
      .map(([key]) => key);
    if (stale.length > 0) await sweep(b, stale, before);
  }
}

async function sweep(b: Book, keys: string[], closedBefore: number): Promise<void> {
  keys.forEach((key) => b.settling.add(key));
  try {
    const chains = keys.map(chainFromKey);
    const reads = await reading.readSpendRecords({ ledgerId: workflowInfo().workflowId, chains, wait: false });
    let settled = 0;
    keys.forEach((key, i) => {
      const read = reads[i];
      if (!read?.ended || (read.closedMs ?? 0) > closedBefore || !b.state.chains[key]) return;
      applySettle(b, key, chains[i], read);
      settled++;
    });
    if (settled === 0) return;
    gauge(b);
    await wakeWaiters(b);
  } finally {
    keys.forEach((key) => b.settling.delete(key));
  }
}

/**
 * While it holds reservations (LISTS_CLOSED_PATCH): the tenant's pipelines closed since the
 * earliest open reservation or the last look, settled from their records. A row that is the
 * chain's first run carries the chain's own record; a continued chain is read as a settle is.
 */
async function listLoop(b: Book): Promise<void> {
  let seen = 0; // the newest close listed so far (epoch ms)
  let every = LIST_EVERY_MS.least;
  for (;;) {
    await condition(() => Object.keys(b.state.chains).length > 0);
    await sleep(every);
    if (Object.keys(b.state.chains).length === 0) continue; // all settled meanwhile (by a sweep)
    const since = Math.max(seen - LIST_OVERLAP_MS, earliestOpen(b));
    const rows = await reading.listClosedSpenders({
      ledgerId: workflowInfo().workflowId,
      tenant: b.tenant,
      sinceMs: since,
    });
    const open = rows.filter((r) => b.state.chains[chainKey(r.chain)] && !b.settling.has(chainKey(r.chain)));
    for (const r of open.filter((row) => row.firstRun))
      applySettle(b, chainKey(r.chain), r.chain, { ended: true, seen: true, record: r.record });
    startSettles(
      b,
      open.filter((row) => !row.firstRun).map((row) => row.chain),
    );
    seen = Math.max(seen, ...rows.map((r) => r.closedMs));
    every = open.length > 0 ? LIST_EVERY_MS.least : Math.min(every * 2, LIST_EVERY_MS.most);
    if (open.some((row) => row.firstRun)) {
      gauge(b);
      await wakeWaiters(b);
    }
  }
}

/** When the oldest open reservation was made: no pipeline that closed before it holds one. */
function earliestOpen(b: Book): number {
  return Math.min(...Object.values(b.state.chains).map((r) => Date.parse(r.since) || 0));
}

function chainFromKey(key: string): RunChain {
  const slash = key.lastIndexOf('/');
  return { pipelineId: key.slice(0, slash), firstRunId: key.slice(slash + 1) };
}

/**
 * One batch: reserves checked against the server once per new sender, then answered in
 * order; then its settles, read together (a chain's reserve always precedes its settle).
 */
async function handleBatch(b: Book, batch: LedgerMessage[]): Promise<void> {
  const reserves: { chain: RunChain; raw: unknown }[] = [];
  const settles: RunChain[] = [];
  for (const m of batch) {
    const raw = 'reserve' in m ? m.reserve : 'settle' in m ? m.settle : undefined;
    const chain = chainOf(raw);
    if (!chain || !b.terms.known || (b.codecStrict && isPlaintext(raw))) refuse(b);
    else if ('reserve' in m) reserves.push({ chain, raw });
    else settles.push(chain);
  }
  const verified = await verifySenders(
    b,
    reserves.map((r) => r.chain),
  );
  const notes: SpenderNote[] = [];
  const total = { committed: committedOf(b.state) }; // kept as the batch goes: no sum per reserve
  for (const r of reserves) {
    const answer = verified.has(chainKey(r.chain)) ? answerOf(b, r.chain, r.raw, total) : refuse(b);
    if (answer) notes.push({ pipelineId: r.chain.pipelineId, answer });
  }
  gauge(b);
  await tell(b, notes);
  startSettles(b, settles);
}

/** 0.2.0's way: a signal command per answer (closed pipelines need none; a live one asks again if it is lost). */
async function signalNote({ pipelineId, answer }: SpenderNote): Promise<void> {
  const handle = getExternalWorkflowHandle(pipelineId);
  await (answer ? handle.signal(spendAnsweredSignal, answer) : handle.signal(budgetRaisedSignal)).catch(
    () => undefined,
  );
}

/**
 * Answers and wake-ups: batched, by one activity per NOTES_PER_TELL; else a signal command
 * each. Awaited either way: the messages that arrive meanwhile make the next batch.
 */
async function tell(b: Book, notes: SpenderNote[]): Promise<void> {
  if (!b.batched) return void (await Promise.all(notes.map((n) => signalNote(n))));
  const parts: SpenderNote[][] = [];
  for (let i = 0; i < notes.length; i += NOTES_PER_TELL) parts.push(notes.slice(i, i + NOTES_PER_TELL));
  await Promise.all(parts.map((part) => reading.tellSpenders({ notes: part })));
}

/** The chains the server shows as running pipelines of this tenant; known chains need no new check. */
async function verifySenders(b: Book, chains: RunChain[]): Promise<Set<string>> {
  const ok = new Set<string>();
  const toCheck = new Map<string, RunChain>();
  for (const c of chains) {
    const key = chainKey(c);
    if (b.state.chains[key] || b.state.settled[key]) ok.add(key);
    else if (!b.refusedChains.has(key)) toCheck.set(key, c);
  }
  if (toCheck.size === 0) return ok;
  const checked = await reading.verifySpendSenders({
    tenant: b.tenant,
    ledgerId: workflowInfo().workflowId,
    chains: [...toCheck.values()],
    ...(b.batched ? { afterMs: SENDER_CHECK_AFTER_MS } : {}),
  });
  for (const [i, key] of [...toCheck.keys()].entries()) {
    if (checked[i] === true) ok.add(key);
    // Unknown (null: the pipeline did not answer) is dropped now and checked again at its next ask.
    else if (checked[i] === false && b.refusedChains.size < MAX_REFUSED_KEPT) b.refusedChains.add(key);
  }
  return ok;
}

/**
 * A verified sender's answer: a grant, a budget refusal, or why its request breaks a rule (also
 * counted); undefined when the request wants none.
 */
function answerOf(b: Book, chain: RunChain, raw: unknown, total: { committed: number }): SpendAnswer | undefined {
  const req = checkReserve(raw);
  let answer: SpendAnswer;
  if ('refused' in req) {
    const r = raw as { key?: unknown; ask?: unknown };
    answer = {
      key: String(r.key).slice(0, 40),
      ask: Number(r.ask) || 0,
      granted: false,
      committed: total.committed,
      amount: 0,
      refused: req.refused,
    };
  } else {
    answer = reserve(b.state, b.terms, req, new Date().toISOString(), MAX_AMOUNT_MINOR, total.committed);
    total.committed = answer.committed;
    if (!req.answer && !answer.refused) return undefined;
    if (req.pull) return keepPulled(b, chain, answer);
  }
  // A refusal by a rule (not by the budget) is counted too: reelflow's own pipelines never earn one.
  if (answer.refused) refuse(b);
  return b.batched ? { ...answer, firstRunId: chain.firstRunId } : answer;
}

/** A pulled ask's answer is read, not sent: a grant is its reservation, a refusal is kept (bounded). */
function keepPulled(b: Book, chain: RunChain, answer: SpendAnswer): undefined {
  if (answer.refused) refuse(b);
  if (answer.granted) return;
  if (b.pulled.size >= MAX_PULLED_KEPT) b.pulled.delete(b.pulled.keys().next().value!);
  b.pulled.set(`${chainKey(chain)}#${answer.key}`, answer);
}

/**
 * `spendAnswersQuery`: per ask, granted once its key is reserved for its chain, the refusal
 * kept for that very ask, else null (not answered yet). Malformed asks read null; nothing throws.
 */
function pulledAnswers(b: Book | undefined, asks: unknown): PulledAnswer[] {
  if (!Array.isArray(asks)) return [];
  return asks.slice(0, MAX_PULLED_KEPT).map((a: unknown) => {
    const chain = chainOf(a);
    const { key, ask } = (a ?? {}) as { key?: unknown; ask?: unknown };
    if (!b || !chain || typeof key !== 'string') return null;
    if (b.state.chains[chainKey(chain)]?.keys.includes(key)) return { granted: true };
    const kept = b.pulled.get(`${chainKey(chain)}#${key}`);
    return kept && kept.ask === ask ? kept : null;
  });
}

/**
 * Settle hints, read together: each chain's pipeline record is read, then applied. A chain
 * with no reservation whose pipeline has ended (cancelled while its ask was on the way) is
 * remembered as settled, so its late ask counts nothing. A repeat, a chain the server does
 * not know, or a hint for a pipeline still running without a record is dropped and counted.
 */
function startSettles(b: Book, chains: RunChain[]): void {
  const fresh = new Map<string, RunChain>();
  for (const chain of chains) {
    const key = chainKey(chain);
    if (b.state.settled[key]) refuse(b);
    else if (!b.settling.has(key)) fresh.set(key, chain);
  }
  if (fresh.size === 0) return;
  for (const key of fresh.keys()) b.settling.add(key);
  if (b.batched) {
    fresh.forEach((chain, key) => b.settleQueue.set(key, chain));
    return readQueuedSettles(b);
  }
  void reading
    .readSpendRecords({ ledgerId: workflowInfo().workflowId, chains: [...fresh.values()] })
    .then(async (reads) => {
      [...fresh.entries()].forEach(([key, chain], i) => applySettle(b, key, chain, reads[i]));
      gauge(b);
      await wakeWaiters(b);
    })
    .finally(() => fresh.forEach((_, key) => b.settling.delete(key)));
}

/** Batched: one read in flight; the settles that arrive meanwhile are read together when it ends. */
function readQueuedSettles(b: Book): void {
  if (b.settleReading || b.settleQueue.size === 0) return;
  const batch = new Map(b.settleQueue);
  b.settleQueue.clear();
  b.settleReading = true;
  void reading
    .readSpendRecords({
      ledgerId: workflowInfo().workflowId,
      chains: [...batch.values()],
      afterMs: SETTLE_READ_AFTER_MS,
    })
    .then(async (reads) => {
      [...batch.entries()].forEach(([key, chain], i) => applySettle(b, key, chain, reads[i]));
      gauge(b);
      await wakeWaiters(b);
    })
    .finally(() => {
      batch.forEach((_, key) => b.settling.delete(key));
      b.settleReading = false;
      readQueuedSettles(b);
    });
}

function applySettle(b: Book, key: string, chain: RunChain, read: SpendRead | undefined): void {
  if (!read?.ended) return refuse(b); // the pipeline still runs and recorded nothing: not its settle
  const reserved = b.state.chains[key] !== undefined;
  const spent = reserved || read.seen ? settle(b.state, b.terms, chain, read.record) : undefined;
  // Nothing reserved nor recorded here: a real pipeline that ended before its ask arrived is
  // remembered (its late ask counts nothing); a chain the server does not know is forged.
  if (!spent) return read.seen ? rememberSettled(b.state, key) : refuse(b);
  for (const [kind, amount] of Object.entries(spent ?? {})) count(b, kind, amount);
}

function refuse(b: Book): undefined {
  b.state.refused++;
  const m = METRICS.ledgerRefused;
  metricMeter.createCounter(m.name, undefined, m.help).add(1, b.terms.known ? { tenant: b.tenant } : {});
}

/** Signals every waiting pipeline once; each asks again (a closed one is skipped). */
async function wakeWaiters(b: Book): Promise<void> {
  const notes = b.state.waiters.map((pipelineId): SpenderNote => ({ pipelineId }));
  b.state.waiters = [];
  await tell(b, notes);
}

/** Only tenants of the worker's file label metrics: their number is bounded. */
function count(b: Book, kind: string, amount: number): void {
  if (!b.terms.known) return;
  const m = METRICS.spend;
  metricMeter.createCounter(m.name, undefined, m.help).add(amount, { tenant: b.tenant, kind });
}

function gauge(b: Book): void {
  const budget = budgetOf(b.state, b.terms);
  // A past period's late settle must not overwrite the current period's value.
  const kind = periodKindOf(b.period);
  if (!b.terms.known || budget === undefined || !kind) return;
  if (periodOf(Date.now(), kind, b.terms.utcOffsetMinutes) !== b.period) return;
  const m = METRICS.budgetRemaining;
  metricMeter.createGauge(m.name, 'int', undefined, m.help).set(budget - committedOf(b.state), { tenant: b.tenant });
}
