/**
 * The pipeline's way into its tenant's ledger (docs/tenants.md, "Budgets"): a workflow cannot
 * send an Update, so reserveSpend does it, as update-with-start (the period's ledger starts
 * with the first reserve). The Update is idempotent by key, so a retried activity counts once.
 * previousLedgerBudget lets a new period's ledger inherit `reelflow budget set`.
 */
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import {
  LEDGER_WORKFLOW,
  ledgerId,
  ledgerQuery,
  ledgerStartOptions,
  previousPeriod,
  reserveUpdate,
  type LedgerInput,
  type ReserveAnswer,
  type ReserveRequest,
} from '../contract/ledger';

export interface ReserveSpendInput {
  /** How the ledger starts when this reserve is its period's first. */
  ledger: Omit<LedgerInput, 'carry' | 'configured'>;
  request: ReserveRequest;
}

export function createLedgerActivities() {
  return {
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
