/**
 * Reads a ledger id's money across all its runs (docs/tenants.md, "Budgets"): the newest
 * run that opened holds the state of every run before it, and a run that never opened (it
 * was terminated first) still holds the messages it received. The ledger's opening activity
 * and `reelflow usage` read alike, so neither a terminate nor a raw start loses money.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ledgerSnapshotQuery, type LedgerMessage, type LedgerSnapshot } from '../contract/ledger';

export interface ReadOptions {
  /** The run that reads (its own state is not yet there): left out. */
  exceptRunId?: string;
  /** The run this one continued from: read first, with no listing (it opened before it continued). */
  continuedFrom?: string;
}

/** Runs of the id, newest first (visibility lists every run; a ledger id holds no quote, else none is read). */
async function runsOf(client: Client, id: string, opts: ReadOptions): Promise<string[]> {
  if (/['\\]/.test(id)) return [];
  const runs: { runId: string; start: number }[] = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = '${id}'` }))
    if (wf.runId !== opts.exceptRunId) runs.push({ runId: wf.runId, start: wf.startTime.getTime() });
  return runs.sort((a, b) => b.start - a.start).map((r) => r.runId);
}

/** The snapshot of one run, or undefined when it is not there (a run id visibility lists but history lost). */
async function snapshotOf(client: Client, id: string, runId: string): Promise<LedgerSnapshot | undefined> {
  try {
    return await client.workflow.getHandle(id, runId).query(ledgerSnapshotQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/** The state the newest opened run holds, with the messages of later runs that never opened, oldest first. */
export async function readLedger(client: Client, id: string, opts: ReadOptions = {}): Promise<LedgerSnapshot> {
  let inbox: LedgerMessage[] = [];
  const first = opts.continuedFrom ? [opts.continuedFrom] : [];
  const walk = async (runIds: string[]): Promise<LedgerSnapshot | undefined> => {
    for (const runId of runIds) {
      const s = await snapshotOf(client, id, runId);
      if (!s) continue;
      inbox = [...s.inbox, ...inbox];
      if (s.state) return { state: s.state, ...(s.terms ? { terms: s.terms } : {}), inbox };
    }
    return undefined;
  };
  const found = (await walk(first)) ?? (await walk((await runsOf(client, id, opts)).filter((r) => !first.includes(r))));
  return found ?? { inbox };
}
