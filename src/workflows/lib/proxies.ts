/**
 * Activity proxies with the options each protocol needs. Creates run ONCE per attempt
 * (maximumAttempts 1): the workflow decides what follows from the failure type.
 * Queries retry 1 s, 2 s, 4 s on network failures; a 429 sets the next delay itself
 * (Retry-After, never below the interface minimum, see src/activities/vendor.ts).
 */
import {
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import type { ReelflowActivities } from '../../activities';
import { getAssetTaskQueue } from '../../contract/messages';
import { FailureType } from '../../failures';

/** Failure types that no retry can fix. */
export const FATAL_TYPES: string[] = [
  FailureType.RejectedError,
  // A 404 on a create is a wrong path (e.g. VENDOR_PATH_WORD), never a task; on a query the
  // poll loop first reads it as possible read-after-write lag (poll.ts).
  FailureType.NotFoundError,
  FailureType.UnauthorizedError,
  FailureType.ForbiddenError,
  FailureType.MissingCredentialError,
  FailureType.VendorConfigError,
];

export const CREATE_OPTIONS: ActivityOptions = {
  // The client's own timeouts (connect 10 s + headers 30 s) end the call first; this
  // bound catches a worker that died mid-call, which is also an ambiguous outcome.
  startToCloseTimeout: '90s',
  retry: { maximumAttempts: 1 },
};

export const QUERY_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '60s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '4s',
    maximumAttempts: 4,
    nonRetryableErrorTypes: FATAL_TYPES,
  },
};

export const ARCHIVE_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '15m',
  heartbeatTimeout: '60s',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 8 },
};

export const creates = proxyActivities<ReelflowActivities>(CREATE_OPTIONS);
/** Regular query activities: the rare check of a task a callback or an operator offers (callbacks/callback-book.ts). */
export const queries = proxyActivities<ReelflowActivities>(QUERY_OPTIONS);
export const archiving = proxyActivities<ReelflowActivities>(ARCHIVE_OPTIONS);
/** Definition validation: a local activity (pure; zod stays out of workflow code). */
export const validating = proxyLocalActivities<ReelflowActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: [FailureType.InvalidDefinition] },
});

/**
 * GetAsset goes to the profile's own task queue, which the Temporal server rate-limits; with
 * tenants, its tasks carry the tenant's priority and fairness keys (docs/tenants.md).
 */
export function getAssetActivity(profile: string, taskOptions: { priority?: Priority } = {}) {
  return proxyActivities<ReelflowActivities>({
    ...QUERY_OPTIONS,
    ...taskOptions,
    // Bounded wait in the queue: if no worker serves this profile's GetAsset queue, the
    // poll loop sees the timeout, keeps trying, and the stage deadline names the problem.
    scheduleToStartTimeout: '5m',
    taskQueue: getAssetTaskQueue(workflowInfo().taskQueue, profile),
  }).getAsset;
}

/**
 * Status queries as local activities: one marker event in the workflow task that the poll
 * timer woke, instead of a scheduled activity and a second workflow task. Never creates: a
 * local activity is re-run when its workflow task fails or times out, so a paid create
 * could be sent twice; queries are read-only, so a re-run costs nothing.
 */
export const LOCAL_QUERY_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: QUERY_OPTIONS.startToCloseTimeout,
  retry: QUERY_OPTIONS.retry,
  // Network backoffs (1-4 s) stay in the worker; a longer Retry-After becomes a durable timer
  // rather than a long-held workflow task (each heartbeat of which adds events).
  localRetryThreshold: '5s',
};

const localQueries = proxyLocalActivities<ReelflowActivities>(LOCAL_QUERY_OPTIONS);

/** The read-only vendor queries that run as local activities (GetAsset keeps its rate-limited queue). */
export type LocalQuery =
  'reviewGetTask' | 'generationGet' | 'eraseGet' | 'listAssetsPage' | 'getAssetGroup' | 'listAssetGroups';

/** One query's call-site API; the casts below only undo TypeScript's lost mapping of a generic key. */
interface QueryCall<K extends LocalQuery, O> {
  executeWithOptions(
    options: O,
    args: Parameters<ReelflowActivities[K]>,
  ): Promise<Awaited<ReturnType<ReelflowActivities[K]>>>;
}

/**
 * What runs a local activity in its turn: PipelineRuntime.inTurn. Live, each result comes in
 * its own activation as it completes; a replay resolves the results of one workflow task
 * together, so parallel branches (asset items, review batches) would go on in another order
 * and issue their next commands in another order (docs/architecture.md, "Local activities in turn").
 */
export interface LocalTurns {
  inTurn<T>(call: () => Promise<T>): Promise<T>;
}

/** Runs one vendor query as a local activity, in its turn. */
export function runQuery<K extends LocalQuery>(
  turns: LocalTurns,
  name: K,
  summary: string,
  args: Parameters<ReelflowActivities[K]>,
): Promise<Awaited<ReturnType<ReelflowActivities[K]>>> {
  const local = localQueries[name] as unknown as QueryCall<K, LocalActivityOptions>;
  return turns.inTurn(() =>
    local.executeWithOptions({ ...LOCAL_QUERY_OPTIONS, summary }, args).catch((err: unknown) => {
      throw asActivityFailure(name, err);
    }),
  );
}

/**
 * A local activity's own failure arrives bare, where the server wraps a regular activity's in
 * an ActivityFailure (timeouts and cancellations come wrapped either way). Wrapped alike, the
 * failure classification (failures.ts) and the poll loop read both paths the same.
 */
function asActivityFailure(activityType: string, err: unknown): unknown {
  if (!(err instanceof ApplicationFailure)) return err;
  const final = err.nonRetryable || FATAL_TYPES.includes(err.type ?? '');
  const state = final ? 'NON_RETRYABLE_FAILURE' : 'MAXIMUM_ATTEMPTS_REACHED';
  return new ActivityFailure('Local activity failed', activityType, undefined, state, undefined, err);
}
