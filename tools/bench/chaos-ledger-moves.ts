/**
 * The chaos run's moves against the tenants' ledgers (docs/benchmarks.md, "Chaos run (`npm run chaos`)"), made
 * by the controller from the seeded schedule: one tenant's current ledger is terminated
 * mid-run while it holds reservations (what `temporal workflow terminate` does), and forged
 * messages are sent to another tenant's ledger, as anyone who may signal workflows could
 * (docs/security.md): a negative count in a running pipeline's name, a reserve in the name of
 * another tenant's running pipeline, a reserve and a settle of a chain that never ran, and a
 * settle of a chain already settled. Each move waits until its ledger holds what it needs,
 * and records what it did for the invariants (chaos-ledger.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import {
  LEDGER_WORKFLOW,
  chainKey,
  ledgerId,
  ledgerSnapshotQuery,
  ledgerStartOptions,
  periodOf,
  reserveSignal,
  settleSignal,
  type LedgerSnapshot,
  type ReserveRequest,
  type RunChain,
} from '../../src/contract/ledger';
import { spentOf } from '../../src/contract/ledger-book';
import { innermostMessage } from './chaos-pipelines';
import type { ChaosSchedule } from './chaos-plan';

export type ForgeryKind = 'negative-count' | 'foreign-chain' | 'unknown-chain' | 'unknown-settle' | 'replayed-settle';

export interface ForgedMessage {
  kind: ForgeryKind;
  ledgerId: string;
  /** The chain the message names. */
  chain: RunChain;
  atMs: number;
}

export interface TerminatedLedger {
  ledgerId: string;
  runId: string;
  atMs: number;
  /** Its confirmed spend and open reservations (chain keys) just before the terminate. */
  spent: number;
  chains: string[];
}

export interface LedgerMoves {
  terminated?: TerminatedLedger;
  forged: ForgedMessage[];
}

export interface LedgerMoveParts {
  client: Client;
  taskQueue: string;
  /** The run's tenants: the second's ledger is terminated, the first's gets the forgeries, the last's chains are foreign. */
  tenants: string[];
  schedule: ChaosSchedule['ledger'];
  log: (line: string) => void;
}

/** The chaos tenants reserve per month on UTC (chaos-gate.ts). */
const currentPeriod = () => periodOf(Date.now(), 'month', 0);
const currentLedger = (tenant: string) => ledgerId(tenant, currentPeriod());

/** `pipelineId/firstRunId` → the chain (a chaos pipeline id has no slash). */
function chainOfKey(key: string): RunChain {
  const slash = key.lastIndexOf('/');
  return { pipelineId: key.slice(0, slash), firstRunId: key.slice(slash + 1) };
}

/** A reserve as a pipeline's check sends it, for a chain and key of the forger's choosing. */
function ask(chain: RunChain, key: string, count: number): ReserveRequest {
  return { chain, key, creates: [{ kind: 'generation', count }], wait: false, answer: true, ask: 1 };
}

export class LedgerChaos {
  readonly moves: LedgerMoves = { forged: [] };
  private lastTry = 0;

  constructor(private readonly p: LedgerMoveParts) {}

  get terminateTenant(): string {
    return this.p.tenants[Math.min(1, this.p.tenants.length - 1)];
  }

  get forgeTenant(): string {
    return this.p.tenants[0];
  }

  /** Called by the controller's loop: each move once its time has come and its ledger is ready (tried once a second). */
  async tick(now: number): Promise<void> {
    if (now - this.lastTry < 1_000) return;
    this.lastTry = now;
    const { schedule } = this.p;
    try {
      if (!this.moves.terminated && now >= schedule.terminateAtMs) await this.terminate(now);
      if (!this.forgedAll && now >= schedule.forgeAtMs) await this.forge(now);
    } catch (err) {
      this.p.log(`chaos: ledger move not made yet (${innermostMessage(err)}); will try again`);
    }
  }

  private snapshot(id: string, runId?: string): Promise<LedgerSnapshot> {
    const { client } = this.p;
    return client.withDeadline(Date.now() + 10_000, () =>
      client.workflow.getHandle(id, runId).query(ledgerSnapshotQuery),
    );
  }

  /** The current ledger of the tenant, once it runs and holds reservations: terminated by run id. */
  private async terminate(now: number): Promise<void> {
    const { client, log } = this.p;
    const id = currentLedger(this.terminateTenant);
    const d = await client.withDeadline(Date.now() + 10_000, () => client.workflow.getHandle(id).describe());
    if (d.status.name !== 'RUNNING') return;
    const snap = await this.snapshot(id, d.runId);
    const chains = Object.keys(snap.state?.chains ?? {});
    if (!snap.state || !snap.terms || chains.length === 0) return;
    await client.withDeadline(Date.now() + 10_000, () =>
      client.workflow.getHandle(id, d.runId).terminate('chaos: a ledger terminated mid-run'),
    );
    const spent = spentOf(snap.state);
    this.moves.terminated = { ledgerId: id, runId: d.runId, atMs: now, spent, chains };
    log(
      `chaos: t=${(now / 1000).toFixed(1)}s terminated ${id} (run ${d.runId}) holding ${chains.length} reservation(s)`,
    );
  }

  /** A chain the ledger holds whose pipeline runs now, if any. */
  private async runningChain(snap: LedgerSnapshot): Promise<RunChain | undefined> {
    const { client } = this.p;
    for (const key of Object.keys(snap.state?.chains ?? {})) {
      const chain = chainOfKey(key);
      const d = await client.withDeadline(Date.now() + 10_000, () =>
        client.workflow.getHandle(chain.pipelineId).describe(),
      );
      if (d.status.name === 'RUNNING' && d.raw.workflowExecutionInfo?.firstRunId === chain.firstRunId) return chain;
    }
    return undefined;
  }

  /**
   * Each forgery once, as soon as what it names exists: the made-up chain's at once, the
   * replayed settle once the target ledger has settled a chain, the negative count and the
   * foreign reserve while the target's and the last tenant's ledgers each hold a running chain.
   * Sent independently, so a run whose chains never overlap still sends every one it can.
   */
  private async forge(now: number): Promise<void> {
    const target = currentLedger(this.forgeTenant);
    const nobody = { pipelineId: `${this.p.taskQueue}-forged`, firstRunId: randomUUID() };
    await this.forgeOnce(now, 'unknown-chain', 'reserve', nobody, ask(nobody, 'plan', 1));
    await this.forgeOnce(now, 'unknown-settle', 'settle', nobody, { chain: nobody });
    const own = await this.snapshot(target);
    const settled = Object.keys(own.state?.settled ?? {})[0];
    if (settled)
      await this.forgeOnce(now, 'replayed-settle', 'settle', chainOfKey(settled), { chain: chainOfKey(settled) });
    const ownChain = this.sent('negative-count') ? undefined : await this.runningChain(own);
    if (ownChain)
      await this.forgeOnce(now, 'negative-count', 'reserve', ownChain, ask(ownChain, 'forged-negative', -1));
    const foreignTenant = this.p.tenants.at(-1)!;
    if (foreignTenant === this.forgeTenant || this.sent('foreign-chain')) return;
    const foreignChain = await this.runningChain(await this.snapshot(currentLedger(foreignTenant)));
    if (foreignChain)
      await this.forgeOnce(now, 'foreign-chain', 'reserve', foreignChain, ask(foreignChain, 'forged-foreign', 1));
  }

  /** Whether every forgery this run can make was sent (a single tenant has no foreign chain). */
  get forgedAll(): boolean {
    const kinds: ForgeryKind[] = ['unknown-chain', 'unknown-settle', 'replayed-settle', 'negative-count'];
    if (this.p.tenants.length > 1) kinds.push('foreign-chain');
    return kinds.every((k) => this.sent(k));
  }

  private sent(kind: ForgeryKind): boolean {
    return this.moves.forged.some((f) => f.kind === kind);
  }

  private async forgeOnce(now: number, kind: ForgeryKind, what: 'reserve' | 'settle', chain: RunChain, body: unknown) {
    if (this.sent(kind)) return;
    const target = currentLedger(this.forgeTenant);
    await this.send(this.forgeTenant, what, body);
    this.moves.forged.push({ kind, ledgerId: target, chain, atMs: now });
    this.p.log(`chaos: t=${(now / 1000).toFixed(1)}s sent a forged ${kind} to ${target} (${chainKey(chain)})`);
  }

  /** Signal-with-start, as a pipeline asks: the message reaches the ledger even while no run of it is open. */
  private async send(tenant: string, what: 'reserve' | 'settle', body: unknown): Promise<void> {
    const { client, taskQueue } = this.p;
    await client.withDeadline(Date.now() + 10_000, () =>
      client.workflow.signalWithStart(LEDGER_WORKFLOW, {
        ...ledgerStartOptions(tenant, currentPeriod(), taskQueue),
        signal: what === 'reserve' ? reserveSignal : settleSignal,
        signalArgs: [body as never],
      }),
    );
  }
}
