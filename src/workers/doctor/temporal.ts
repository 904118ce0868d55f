/**
 * Temporal preflight: the namespace exists, reelflow's search attributes are registered,
 * and a worker polls the workflow task queue and each profile's GetAsset queue. Read-only
 * (describe and list calls only).
 */
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { REELFLOW_SEARCH_ATTRIBUTES } from '../../contract/search-attributes';
import { getAssetTaskQueue } from '../../contract/messages';
import { fail, guarded, pass, type CheckResult } from './check';

const QUEUE_TYPE = temporal.api.enums.v1.TaskQueueType;

export interface TemporalCheckInput {
  connection: Connection;
  namespace: string;
  taskQueue: string;
  profiles: readonly string[];
}

async function namespaceCheck(connection: Connection, namespace: string): Promise<CheckResult> {
  await connection.workflowService.describeNamespace({ namespace });
  return pass('temporal.namespace', 'Temporal namespace', `${namespace} exists`);
}

async function searchAttributesCheck(connection: Connection, namespace: string): Promise<CheckResult> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const have = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = Object.keys(REELFLOW_SEARCH_ATTRIBUTES).filter((name) => !have.has(name));
  const title = 'search attributes';
  if (missing.length === 0) return pass('temporal.search-attributes', title, 'all registered');
  return fail(
    'temporal.search-attributes',
    title,
    `not registered on ${namespace}: ${missing.join(', ')}`,
    `reelflow setup --namespace ${namespace} (on Temporal Cloud: its console or API)`,
  );
}

async function pollerCheck(
  connection: Connection,
  namespace: string,
  name: string,
  kind: 'workflow' | 'activity',
): Promise<CheckResult> {
  const res = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name },
    taskQueueType: kind === 'workflow' ? QUEUE_TYPE.TASK_QUEUE_TYPE_WORKFLOW : QUEUE_TYPE.TASK_QUEUE_TYPE_ACTIVITY,
  });
  const pollers = res.pollers ?? [];
  const id = `temporal.pollers.${name}`;
  const title = `worker polling ${name}`;
  if (pollers.length > 0) return pass(id, title, `${pollers.length} poller(s) (${kind} tasks)`);
  return fail(
    id,
    title,
    `no worker polled its ${kind} tasks lately`,
    `start a worker (npm run worker) with REELFLOW_TASK_QUEUE and REELFLOW_PROFILES matching this configuration`,
  );
}

/** Every Temporal check; an unreachable server or missing namespace fails the first and skips the rest. */
export async function temporalChecks(input: TemporalCheckInput): Promise<CheckResult[]> {
  const { connection, namespace, taskQueue, profiles } = input;
  const first = await guarded(
    'temporal.namespace',
    'Temporal namespace',
    'check TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (or --address / --namespace); create the namespace if it is missing',
    () => namespaceCheck(connection, namespace),
  );
  if (!first[0].ok) return first;
  const fixQueue = 'check that the server answers DescribeTaskQueue for this namespace';
  const queues: [string, 'workflow' | 'activity'][] = [
    [taskQueue, 'workflow'],
    ...profiles.map((p): [string, 'activity'] => [getAssetTaskQueue(taskQueue, p), 'activity']),
  ];
  const rest = await Promise.all([
    guarded('temporal.search-attributes', 'search attributes', `reelflow setup --namespace ${namespace}`, () =>
      searchAttributesCheck(connection, namespace),
    ),
    ...queues.map(([q, kind]) =>
      guarded(`temporal.pollers.${q}`, `worker polling ${q}`, fixQueue, () =>
        pollerCheck(connection, namespace, q, kind),
      ),
    ),
  ]);
  return [...first, ...rest.flat()];
}
