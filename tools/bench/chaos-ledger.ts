/**
 * The chaos run's money invariants (docs/benchmarks.md, "Chaos run (`npm run chaos`)"; docs/tenants.md,
 * "Budgets"). The pipelines run as three tenants of a tenants file with a price for every
 * paid kind and, for all but the last tenant, a monthly budget (chaos-gate.ts); during the
 * run one ledger is terminated and forged messages reach another (chaos-ledger-moves.ts),
 * and one pipeline reuses an earlier one's workflow id (chaos-plan.ts). After the run, each
 * tenant's ledgers are read as `reelflow usage` reads them, and:
 *
 * - ledger-exact: confirmed spend ≤ vendor records × price ≤ confirmed + unresolved, per
 *   tenant (and period: a run lies in one month, else its months are summed), and no
 *   reservation is left open once every pipeline has ended;
 * - ledger-budget: confirmed spend ≤ budget, for each ledger with a budget;
 * - ledger-refused: each ledger counted at least the forged messages sent to it as refused,
 *   and none of their made-up or foreign chains holds a reservation or spend there;
 * - ledger-reuse: both run chains under the reused workflow id were settled, each with its
 *   pipeline's own record (counted as two pipelines);
 * - ledger-terminate: the terminated ledger's spend and open reservations carried over to
 *   its later runs: every reservation open at the terminate was settled by the end.
 *
 * The vendor records are the emulator's inspection, tied to pipelines by tag as for
 * no-duplicates; chaos-run.ts calls checkLedgers() after the emulator's snapshot.
 */
import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { LEDGER_WORKFLOW, chainKey, parseLedgerId, type LedgerState, type LedgerView } from '../../src/contract/ledger';
import { viewOf } from '../../src/contract/ledger-book';
import { TENANT } from '../../src/contract/search-attributes';
import { tenantUsage, type TenantUsage } from '../../src/starters/client/ledger';
import { formatMinorUnits, parseTenantsConfig, priceTable } from '../../src/tenants/config';
import { readLedger } from '../../src/tenants/ledger-read';
import { attributeRecords, result, type ChaosSnapshot as Snapshot, type InvariantResult } from './chaos-invariants';
import type { LedgerMoves } from './chaos-ledger-moves';
import { CHAOS_TENANTS, type PlannedPipeline } from './chaos-plan';

/** Distinct prices, so a record counted under the wrong kind shows (chaos-gate.ts writes them into the tenants file). */
export const CHAOS_PRICES = {
  review: '0.01',
  assetGroup: '0.002',
  asset: '0.0003',
  generation: '0.35',
  erase: '0.000017',
};

/** One ledger id as read across all its runs (src/tenants/ledger-read.ts), with the runs visibility lists. */
export interface LedgerRead {
  id: string;
  tenant: string;
  period: string;
  view: LedgerView;
  state: LedgerState;
  /** Oldest first, with their start and close times (ISO). */
  runs: { runId: string; status: string; start: string; close?: string }[];
  /** Why each reservation left open was not settled: its pipeline's settle signal and what became of it. */
  settleFates?: Record<string, string>;
}

/** The reused workflow id: its chains in start order, each with its pipeline's tag. */
export interface ReuseChains {
  workflowId: string;
  tenant: string;
  chains: { tag: string; firstRunId?: string }[];
}

const money = formatMinorUnits;

/** Per tenant: its pipelines' vendor records × the price of their kind, minor units. */
export function expectedSpend(plan: PlannedPipeline[], snapshot: Snapshot): Map<string, number> {
  const prices = priceTable(parseTenantsConfig({ prices: CHAOS_PRICES, tenants: {} }));
  const tenantOfTag = new Map(plan.map((p) => [p.tag, p.definition.options!.tenant!]));
  const expected = new Map([...new Set(tenantOfTag.values())].sort().map((t) => [t, 0]));
  for (const r of attributeRecords(snapshot)) {
    const tenant = r.tag === undefined ? undefined : tenantOfTag.get(r.tag);
    if (tenant !== undefined) expected.set(tenant, expected.get(tenant)! + prices[r.kind]);
  }
  return expected;
}

const unresolvedAmount = (u: TenantUsage | undefined) => (u?.unresolved ?? []).reduce((s, r) => s + r.amount, 0);

const runsLine = (r: LedgerRead) =>
  r.runs.map((x) => `${x.runId} ${x.status} ${x.start}${x.close ? `–${x.close}` : ''}`).join(', ');

/** Why a reservation is still open, as far as the histories tell. */
const whyOpen = (r: LedgerRead, key: string) =>
  `${r.settleFates?.[key] ?? 'its settle not looked up'}; the ledger's runs: ${runsLine(r)}`;

/** ledger-exact: spent ≤ records × price ≤ spent + unresolved per tenant; nothing left reserved. */
export function checkLedgerExact(
  expected: Map<string, number>,
  usage: Map<string, TenantUsage>,
  reads: LedgerRead[],
): InvariantResult {
  const problems: string[] = [];
  const unresolved: string[] = [];
  const breakdown: Record<string, number> = { unresolved: 0, reservedLeft: 0 };
  for (const [t, want] of expected) {
    const u = usage.get(t);
    const spent = u?.spent ?? 0;
    const open = unresolvedAmount(u);
    const line = `${t} (${u?.periods.join(', ') || 'no ledger'}): confirmed ${money(spent)} + unresolved ${money(open)}, vendor records × price ${money(want)}`;
    breakdown[`${t} confirmed (minor units)`] = spent;
    if (spent > want) problems.push(`${line}: ${money(spent - want)} confirmed that the vendor does not hold`);
    if (want > spent + open) problems.push(`${line}: ${money(want - spent - open)} at the vendor the ledger lost`);
    breakdown.reservedLeft += u?.reserved ?? 0;
    for (const r of u?.unresolved ?? []) {
      breakdown.unresolved += 1;
      unresolved.push(`unresolved: ${t} ${r.stage} ${r.kind} ${money(r.amount)} (${r.key})`);
    }
  }
  for (const r of reads)
    for (const [key, c] of Object.entries(r.state.chains))
      problems.push(
        `${r.id}: ${key} left reserved (${Object.keys(c.creates).join(', ')}) after every pipeline ended; ` +
          whyOpen(r, key),
      );
  const exact = result(
    'ledger-exact',
    "Each tenant's vendor records × price lie between its confirmed spend and confirmed + unresolved",
    "per tenant and period (a run's months summed), the sum of its ledgers' confirmed spend (reelflow usage) is at " +
      "most the emulator's records of its pipelines (attributed as for no-duplicates) × the price of their kind, and " +
      'that is at most confirmed + unresolved, to the minor unit: a confirmed create has its task at the vendor, an ' +
      'unresolved one may or may not (equality when each has); once every pipeline has ended no reservation is left ' +
      'open; unresolved reservations are listed on their own lines',
    expected.size,
    problems,
    breakdown,
  );
  // Unresolved reservations are listed after the violations: not violations, but each needs a look.
  return { ...exact, examples: [...exact.examples, ...unresolved].slice(0, 10) };
}

/** ledger-budget: spent ≤ budget for every ledger with one; at least one ledger had one. */
export function checkLedgerBudget(reads: LedgerRead[]): InvariantResult {
  const problems: string[] = [];
  const breakdown: Record<string, number> = {};
  const budgeted = reads.filter((r) => r.view.budget !== undefined);
  for (const r of budgeted) {
    const { spent, budget } = r.view;
    breakdown[`${r.tenant} ${r.period} spent of budget (‰)`] = Math.round((1000 * spent) / Math.max(1, budget!));
    if (spent > budget!) problems.push(`${r.id}: confirmed ${money(spent)} over its budget ${money(budget!)}`);
  }
  if (budgeted.length === 0) problems.push('no ledger of the run had a budget: nothing was checked');
  return result(
    'ledger-budget',
    'No ledger with a budget confirmed more than its budget',
    "for each ledger of the run's tenants with a budget in force (the tenants file's, or budget set's), its " +
      'confirmed spend ≤ that budget; at least one ledger has a budget',
    budgeted.length,
    problems,
    breakdown,
  );
}

/** ledger-refused: refused ≥ forged per ledger; no made-up or foreign chain reserved, settled or unresolved there. */
export function checkLedgerRefused(moves: LedgerMoves, reads: LedgerRead[], planned: boolean): InvariantResult {
  const problems: string[] = [];
  const breakdown: Record<string, number> = {};
  if (planned && moves.forged.length === 0) problems.push('no forged message was sent: the move was not made');
  for (const f of moves.forged) breakdown[`forged ${f.kind}`] = (breakdown[`forged ${f.kind}`] ?? 0) + 1;
  const byLedger = new Map<string, LedgerMoves['forged']>();
  for (const f of moves.forged) byLedger.set(f.ledgerId, [...(byLedger.get(f.ledgerId) ?? []), f]);
  for (const [id, sent] of byLedger) {
    const r = reads.find((x) => x.id === id);
    breakdown[`${id} sent`] = sent.length;
    breakdown[`${id} refused`] = r?.view.refused ?? 0;
    if (!r) {
      problems.push(`${id}: no run of it could be read`);
      continue;
    }
    if (r.view.refused < sent.length)
      problems.push(`${id}: refused ${r.view.refused}, but ${sent.length} forged messages were sent to it`);
    const unresolvedKeys = new Set(r.state.unresolved.map((u) => u.key));
    for (const f of sent.filter((x) => x.kind === 'foreign-chain' || x.kind.startsWith('unknown'))) {
      const key = chainKey(f.chain);
      if (r.state.chains[key] || r.state.settled[key] || unresolvedKeys.has(key))
        problems.push(`${id}: the ${f.kind} forgery's chain ${key} was counted`);
    }
  }
  return result(
    'ledger-refused',
    'Forged ledger messages are refused, counted, and never counted as spend',
    "each ledger's refused count ≥ the forged messages sent to it (a negative count in a running pipeline's name, " +
      "a reserve in another tenant's running pipeline's name, a reserve and a settle of a chain that never ran, a " +
      'settle of a chain already settled); the made-up and foreign chains hold no reservation, settled key or ' +
      'unresolved spend there; the equality of ledger-exact shows no forged message became spend',
    moves.forged.length,
    problems,
    breakdown,
  );
}

/** ledger-reuse: every chain under the reused id settled in its tenant's ledger, with its own record. */
export function checkLedgerReuse(reuse: ReuseChains | undefined, reads: LedgerRead[]): InvariantResult {
  const problems: string[] = [];
  const own = reads.filter((r) => r.tenant === reuse?.tenant);
  for (const c of reuse?.chains ?? []) {
    if (!c.firstRunId) {
      problems.push(`${reuse!.workflowId}: ${c.tag} never started (no run chain)`);
      continue;
    }
    const key = chainKey({ pipelineId: reuse!.workflowId, firstRunId: c.firstRunId });
    if (!own.some((r) => r.state.settled[key])) problems.push(`${key} (${c.tag}) was not settled: not counted`);
    if (own.some((r) => r.state.unresolved.some((u) => u.key === key)))
      problems.push(`${key} (${c.tag}) was settled without its record: its creates were counted unresolved`);
  }
  if (reuse && reuse.chains.length < 2)
    problems.push(`${reuse.workflowId}: ${reuse.chains.length} run chain(s), not 2`);
  return result(
    'ledger-reuse',
    'A reused workflow id is a new pipeline to the ledger',
    'one pipeline starts under the workflow id of a pipeline of its tenant that has ended; each of the two run ' +
      "chains (workflow id and first run id) is settled in the tenant's ledger from its own pipeline's record " +
      '(none of its creates unresolved), so both are counted',
    reuse?.chains.length ?? 0,
    problems,
  );
}

/** ledger-terminate: the terminated ledger's money carried over; its id ran again. */
export function checkLedgerTerminate(moves: LedgerMoves, reads: LedgerRead[], planned: boolean): InvariantResult {
  const problems: string[] = [];
  const t = moves.terminated;
  if (planned && !t) problems.push('no ledger was terminated: the move was not made');
  const r = t && reads.find((x) => x.id === t.ledgerId);
  if (t && !r) problems.push(`${t.ledgerId}: no run of it could be read after the terminate`);
  if (t && r) {
    const run = r.runs.find((x) => x.runId === t.runId);
    if (run?.status !== 'TERMINATED') problems.push(`${t.ledgerId} run ${t.runId} is ${run?.status ?? 'not listed'}`);
    if (r.view.spent < t.spent)
      problems.push(`${t.ledgerId}: confirmed ${money(r.view.spent)} after, ${money(t.spent)} before the terminate`);
    for (const key of t.chains)
      if (!r.state.settled[key])
        problems.push(`${t.ledgerId}: ${key}, reserved at the terminate, was never settled; ` + whyOpen(r, key));
  }
  return result(
    'ledger-terminate',
    "A terminated ledger's money carries over to its next run",
    "one tenant's current ledger is terminated mid-run while it holds reservations; afterwards that run is listed " +
      'TERMINATED, the ledger id confirms at least the spend it had, and every reservation open at the terminate was ' +
      'settled by a later run',
    t ? t.chains.length + 1 : 0,
    problems,
    { runsOfTerminatedLedger: r?.runs.length ?? 0 },
  );
}

const E = temporal.api.enums.v1;
const iso = (t: Parameters<typeof tsToMs>[0] | null | undefined) => (t ? new Date(tsToMs(t)).toISOString() : '?');

/**
 * What became of a chain's settle: the pipeline's SignalExternalWorkflowExecution of
 * `settleSpend` to the ledger, and its outcome event (signalled, or failed and why).
 */
export async function settleFate(client: Client, ledger: string, key: string): Promise<string> {
  const slash = key.lastIndexOf('/');
  const [pipelineId, firstRunId] = [key.slice(0, slash), key.slice(slash + 1)];
  const events = (await client.workflow.getHandle(pipelineId, firstRunId).fetchHistory()).events ?? [];
  const sent = events.filter((e) => {
    const a = e.signalExternalWorkflowExecutionInitiatedEventAttributes;
    return a?.signalName === 'settleSpend' && a.workflowExecution?.workflowId === ledger;
  });
  if (sent.length === 0) return `its pipeline (run ${firstRunId}) sent no settle`;
  return sent
    .map((e) => {
      const id = Number(e.eventId);
      const failed = events.find(
        (x) => Number(x.signalExternalWorkflowExecutionFailedEventAttributes?.initiatedEventId) === id,
      );
      const done = events.find(
        (x) => Number(x.externalWorkflowExecutionSignaledEventAttributes?.initiatedEventId) === id,
      );
      const cause = failed?.signalExternalWorkflowExecutionFailedEventAttributes?.cause;
      const outcome = failed
        ? `failed at ${iso(failed.eventTime)}: ${E.SignalExternalWorkflowExecutionFailedCause[cause ?? 0]}`
        : done
          ? `delivered at ${iso(done.eventTime)}`
          : 'no outcome recorded';
      return `its settle signal (event ${id}, ${iso(e.eventTime)}) ${outcome}`;
    })
    .join('; ');
}

/** Every ledger id of each tenant, read across its runs (as `reelflow usage` reads them). */
async function readLedgers(client: Client, tenants: string[]): Promise<LedgerRead[]> {
  const runs = new Map<string, LedgerRead['runs']>();
  for (const t of tenants) {
    const query = `WorkflowType = '${LEDGER_WORKFLOW}' AND ${TENANT.name} = '${t}'`;
    for await (const wf of client.workflow.list({ query })) {
      const run = {
        runId: wf.runId,
        status: wf.status.name,
        start: wf.startTime.toISOString(),
        ...(wf.closeTime ? { close: wf.closeTime.toISOString() } : {}),
      };
      runs.set(
        wf.workflowId,
        [...(runs.get(wf.workflowId) ?? []), run].sort((a, b) => a.start.localeCompare(b.start)),
      );
    }
  }
  const reads: LedgerRead[] = [];
  for (const [id, list] of runs) {
    const { tenant, period } = parseLedgerId(id)!;
    const snap = await readLedger(client, id);
    if (snap.state && snap.terms)
      reads.push({
        id,
        tenant,
        period,
        view: viewOf(tenant, period, snap.state, snap.terms),
        state: snap.state,
        runs: list,
      });
  }
  return reads.sort((a, b) => a.id.localeCompare(b.id));
}

/** Usage and ledgers once every settle has landed: all reservations closed and two reads alike (or 30 s). */
async function settledRead(client: Client, tenants: string[]) {
  let last = '';
  for (let i = 0; ; i++) {
    const all = await Promise.all(tenants.map((tenant) => tenantUsage(client, { tenant })));
    const usage = new Map(all.flat().map((u) => [u.tenant, u]));
    const reads = await readLedgers(client, tenants);
    const now = JSON.stringify(reads.map((r) => [r.id, r.view, r.runs.length]));
    const closed = reads.every((r) => r.view.reserved === 0) && usage.size === tenants.length;
    if ((now === last && closed) || i >= 30) return { usage, reads: await withSettleFates(client, reads) };
    last = now;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** For each reservation left open, what became of its settle (evidence for the report). */
async function withSettleFates(client: Client, reads: LedgerRead[]): Promise<LedgerRead[]> {
  for (const r of reads) {
    const keys = Object.keys(r.state.chains);
    if (keys.length === 0) continue;
    r.settleFates = {};
    for (const key of keys)
      r.settleFates[key] = await settleFate(client, r.id, key).catch((err: unknown) => `its history: ${String(err)}`);
  }
  return reads;
}

export interface LedgerCheckInput {
  client: Client;
  plan: PlannedPipeline[];
  snapshot: Snapshot;
  tenants: string[];
  moves: LedgerMoves;
  /** The run chain of each started pipeline, by tag (chaos-pipelines.ts). */
  chains: Map<string, { workflowId: string; firstRunId?: string }>;
  log?: (line: string) => void;
}

/** The reused workflow id's chains, in start order, when the plan has a reuse. */
function reuseOf(plan: PlannedPipeline[], chains: LedgerCheckInput['chains']): ReuseChains | undefined {
  const reuser = plan.find((p) => p.reuses !== undefined);
  if (!reuser) return undefined;
  const tags = [reuser.reuses!, reuser.tag];
  return {
    workflowId: reuser.workflowId,
    tenant: reuser.definition.options!.tenant!,
    chains: tags.map((tag) => ({
      tag,
      ...(chains.get(tag)?.firstRunId ? { firstRunId: chains.get(tag)!.firstRunId } : {}),
    })),
  };
}

export async function checkLedgers(input: LedgerCheckInput): Promise<InvariantResult[]> {
  const { client, plan, tenants, moves, log = () => undefined } = input;
  const expected = expectedSpend(plan, input.snapshot);
  const { usage, reads } = await settledRead(client, tenants);
  for (const r of reads)
    log(
      `chaos: ledger ${r.id}: confirmed ${money(r.view.spent)}, reserved ${money(r.view.reserved)}, ` +
        `unresolved ${r.view.unresolved.length}, refused ${r.view.refused}, budget ${r.view.budget === undefined ? 'none' : money(r.view.budget)}, ${r.runs.length} run(s)`,
    );
  // The moves need a settled chain and running ones at once: a run of a few pipelines may not offer them.
  const planned = plan.length > CHAOS_TENANTS;
  return [
    checkLedgerExact(expected, usage, reads),
    checkLedgerBudget(reads),
    checkLedgerRefused(moves, reads, planned),
    checkLedgerReuse(reuseOf(plan, input.chains), reads),
    checkLedgerTerminate(moves, reads, planned),
  ];
}
