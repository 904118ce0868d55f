/**
 * The namespace and reelflow's search attributes on a fresh or existing server,
 * idempotently, and a wait until the frontend accepts them: a real server caches
 * namespaces (refreshed every ~10 s), where the dev server reads through.
 */
import { isGrpcServiceError, type Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { registerSearchAttributes } from '../../../src/starters/client/register-search-attributes';
import { REELFLOW_SEARCH_ATTRIBUTES } from '../../../src/contract/search-attributes';

const GRPC_ALREADY_EXISTS = 6;

export interface NamespaceOptions {
  namespace: string;
  retentionDays: number;
  timeoutMs?: number;
  log?: (line: string) => void;
}

export async function ensureNamespace(connection: Connection, opts: NamespaceOptions): Promise<void> {
  const log = opts.log ?? (() => undefined);
  try {
    await connection.workflowService.registerNamespace({
      namespace: opts.namespace,
      workflowExecutionRetentionPeriod: msToTs(`${opts.retentionDays} days`),
    });
    log(`temporal-server: created namespace ${opts.namespace} (retention ${opts.retentionDays} d)`);
  } catch (err) {
    if (!(isGrpcServiceError(err) && Number(err.code) === GRPC_ALREADY_EXISTS)) throw err;
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  // A new namespace is unknown to the operator API until its cache refreshes.
  const added = await retryUntil(deadline, () => registerSearchAttributes(connection, opts.namespace));
  if (added.length) log(`temporal-server: registered search attributes ${added.join(', ')}`);
  // Visibility queries validate names against the same cache: usable once a query naming them passes.
  await retryUntil(deadline, () =>
    connection.workflowService.listWorkflowExecutions({
      namespace: opts.namespace,
      pageSize: 1,
      query: Object.keys(REELFLOW_SEARCH_ATTRIBUTES)
        .map((name) => `${name} = 'probe'`)
        .join(' AND '),
    }),
  );
}

async function retryUntil<T>(deadline: number, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
