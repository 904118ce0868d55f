/**
 * Every reelflow_* metric in one place: name, help text and labels. They go out through the
 * Temporal SDK's metric meter, on the worker's Prometheus endpoint (REELFLOW_METRICS_BIND) beside
 * the SDK's own temporal_* metrics. The SDK adds its labels for custom metrics: namespace,
 * taskQueue, and activityType or workflowType (camelCase, unlike its temporal_* ones); the gauge
 * uses taskQueue to match. docs/operations.md, "Metrics" lists them with the alerts an operator
 * needs.
 *
 * Pure module: workflow code imports it (no I/O, no node built-ins).
 */

export interface MetricName {
  name: string;
  help: string;
}

export const METRICS = {
  /** Labels: interface, endpoint, outcome (VendorCallOutcome). Activities, one per HTTP call. */
  vendorCalls: {
    name: 'reelflow_vendor_calls_total',
    help: 'Vendor HTTP calls by interface, endpoint and outcome',
  },
  /** Labels: kind (vendor task kind), outcome (ReconcileOutcome). Workflow code (workflows/create/create.ts). */
  reconcile: {
    name: 'reelflow_reconcile_total',
    help: 'Ambiguous creates reconciled, by task kind and outcome',
  },
  /** Labels: taskQueue. Worker process, from visibility every REELFLOW_METRICS_REFRESH seconds. */
  operatorWaits: {
    name: 'reelflow_operator_waits',
    help: 'Running pipelines of this task queue waiting for an operator decision (resolveCreate)',
  },
  /** Labels: stage, state (done, failed, cancelled). Workflow code, when a stage ends. */
  stageDuration: {
    name: 'reelflow_stage_duration_seconds',
    help: 'Stage durations in seconds (workflow time, across continue-as-new), by stage and end state',
  },
  /** Labels: state (completed, failed, cancelled), stage, failure (failed only). Workflow code. */
  pipelinesEnded: {
    name: 'reelflow_pipelines_ended_total',
    help: 'Pipelines ended, by end state, the stage they ended in and the failure type',
  },
  /** Labels: currency, item. Workflow code, when a pipeline ends (its result's cost). */
  cost: {
    name: 'reelflow_cost_microunits_total',
    help: 'Vendor cost in millionths of a currency unit, by currency and priced item',
  },
  /**
   * Labels: tenant, kind. The tenant's ledger workflow, when a reservation is confirmed:
   * minor units (millionths of the currency unit). Only configured tenants (docs/tenants.md).
   */
  spend: {
    name: 'reelflow_spend_total',
    help: 'Confirmed spend in minor units (millionths of the currency unit), by tenant and paid create kind',
  },
  /** Labels: tenant. The ledger of the current period: budget − confirmed − reserved, minor units. */
  budgetRemaining: {
    name: 'reelflow_budget_remaining',
    help: "Budget left in the tenant's current period, minor units (reservations in flight counted as spent)",
  },
  /**
   * Labels: tenant (only for tenants of the worker's file). The ledger workflow, per message it
   * drops: malformed, from a sender that is not a running pipeline of its tenant and chain, or a
   * settle of an unknown or settled chain (docs/security.md, "Ledger messages").
   */
  ledgerRefused: {
    name: 'reelflow_ledger_refused_total',
    help: 'Ledger messages dropped: malformed, or not from a running pipeline of the tenant and run chain',
  },
  /** Labels: backend (local, s3). Archive activity, per file downloaded (a file found already archived adds 0). */
  archiveBytes: {
    name: 'reelflow_archive_bytes_total',
    help: 'Bytes written to the archive, by backend',
  },
  /** Labels: backend. Archive activity, per attempt that returned a file (found already archived included). */
  archiveDuration: {
    name: 'reelflow_archive_duration_seconds',
    help: 'Archive attempts that returned a file: seconds from start to the file stored, by backend',
  },
  /** Labels: backend, type (the ArchiveXxx failure type, or cancelled). Archive activity, per failed attempt. */
  archiveFailures: {
    name: 'reelflow_archive_failures_total',
    help: 'Archive attempts that failed, by backend and failure type',
  },
} as const satisfies Record<string, MetricName>;

/** Where the archive activity stores files (REELFLOW_ARCHIVE_STORE unset: local). */
export type ArchiveBackend = 'local' | 's3';

/** The `outcome` of a vendor call: `ok`, or what its error class says. */
export type VendorCallOutcome =
  | 'ok'
  | 'rate_limited'
  | 'ambiguous'
  | 'not_sent'
  | 'rejected'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'upstream_failed'
  | 'missing_credential'
  | 'error';

/**
 * How an ambiguous create (or an asset-management 502) was settled. `waited` counts each
 * operator wait begun; the wait then ends as found_by_callback, found_by_operator,
 * resubmitted or abandoned.
 */
export type ReconcileOutcome =
  'found_by_name' | 'found_by_callback' | 'found_by_operator' | 'waited' | 'resubmitted' | 'abandoned';

/** Stage durations run from seconds (review, assets) to hours (a long generation or an operator wait). */
export const STAGE_DURATION_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 21600, 86400];

/** Costs are counted in millionths of a unit: the SDK's counters are whole numbers (erase is 15 per task). */
export const MICROUNITS = 1_000_000;
