/**
 * The spend ledger's calls from a pipeline (docs/tenants.md, "Budgets"). A workflow cannot
 * signal-with-start, so askSpend does it (the period's ledger starts with its first reserve);
 * the ledger answers the pipeline by signal. The ask is idempotent by key, so a retried
 * activity counts once. reserveSpend, by update-with-start, serves pipelines recorded before
 * that. previousLedgerBudget lets a new period's ledger inherit `reelflow budget set`.
 */
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import {
  LEDGER_WORKFLOW,
  ledgerId,
  ledgerQuery,
  ledgerStartOptions,
  previousPeriod,
  reserveSignal,
  reserveUpdate,
  settleSignal,
  type LedgerInput,
  type ReserveAnswer,
  type ReserveSpendInput,
  type SettleMessage,
} from '../contract/ledger';

export function createLedgerActivities() {
  return {
    askSpend: async ({ ledger, request }: ReserveSpendInput): Promise<void> => {
      const { client, info } = Context.current();
      const start = ledgerStartOptions({ ...ledger, configured: true }, info.taskQueue);
      await client.workflow.signalWithStart(LEDGER_WORKFLOW, {
        ...start,
        signal: reserveSignal,
        signalArgs: [request],
      });
    },
    /** A settle, sent for a pipeline; a ledger gone (terminated by hand) has nothing left to settle. */
    settleSpend: async ({ ledgerId: id, message }: { ledgerId: string; message: SettleMessage }): Promise<void> => {
      try {
        await Context.current().client.workflow.getHandle(id).signal(settleSignal, message);
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
    reserveSpend: async ({ ledger, request }: ReserveSpendInput): Promise<ReserveAnswer> => {
      const { client, info } = Context.current();
      return client.workflow.executeUpdateWithStart(reserveUpdate, {
        args: [request],
        startWorkflowOperation: new WithStartWorkflowOperation(
          LEDGER_WORKFLOW,
          ledgerStartOptions({ ...ledger, configured: true }, info.taskQueue),
        ),
      });
    },
    /** The budget `reelflow budget set` gave the previous period, if its ledger has one. */
    previousLedgerBudget: async (input: LedgerInput): Promise<number | undefined> => {
      const id = ledgerId(input.tenant, previousPeriod(input.period, input.utcOffsetMinutes));
      try {
        const view = await Context.current().client.workflow.getHandle(id).query(ledgerQuery);
        return view.override;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      }
    },
  };
}
