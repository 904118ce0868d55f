/**
 * The chaos run's options and its report, apart from the run (chaos-run.ts) and from the
 * summary that builds the report (chaos-summary.ts), so neither imports the other.
 */
import type { FaultConfig } from '../../src/emulator/faults';
import type { InspectionSnapshot } from '../../src/emulator/inspection';
import type { KillRecord, RestartRecord } from './chaos-controller';
import type { InvariantResult } from './chaos-invariants';
import type { LedgerMoves } from './chaos-ledger-moves';
import type { OperatorDecision } from './chaos-operator';
import type { BusiestWindow } from './rate-window';
import type { TemporalKind } from './temporal-server';

export interface ChaosOptions {
  pipelines: number;
  seed: number;
  /** Worker SIGKILLs (each followed by a replacement). */
  kills: number;
  /** Restart the dev server once mid-run (needs a server of our own). */
  restartServer: boolean;
  /** Worker processes running at any time. */
  workers: number;
  /** The server it starts for itself: the dev server (default) or the real one on PostgreSQL. */
  temporalKind?: TemporalKind;
  /** Use this Temporal server instead of starting one (the quick test shares jest's). */
  temporal?: { address: string; namespace?: string };
  /** Folder for logs, the SQLite file and the archive. Default: a new temp folder. */
  workDir?: string;
  /** Give up on unfinished pipelines after this long. Default: from N. */
  timeoutMs?: number;
  /** Policy of ambiguous review/generation/erase creates (see PlanOptions); default ask. */
  ambiguousPolicy?: 'ask' | 'resubmit';
  /** Fault mix; default chaosFaults(). */
  faults?: FaultConfig;
  log?: (line: string) => void;
}

/** What the run did to the tenants' ledgers (chaos-ledger-moves.ts), and the workflow id it reused. */
export interface ChaosLedgerMoves extends LedgerMoves {
  /** The reused workflow id and its two pipelines: tag and first run id. */
  reuse?: { workflowId: string; first: string; second: string };
}

export interface ChaosReport {
  kind: 'reelflow-chaos';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  machine: { cpus: number; node: string; platform: string };
  options: {
    pipelines: number;
    seed: number;
    kills: number;
    restartServer: boolean;
    workers: number;
    ambiguousPolicy: 'ask' | 'resubmit';
    profiles: number;
    taskQueue: string;
    ownServer: boolean;
    /** The server it started (absent with a shared one). */
    temporalServer?: string;
    timeoutMs: number;
  };
  workDir: string;
  faults: {
    config: FaultConfig;
    injectedByKind: Record<string, number>;
    injectedByEndpoint: Record<string, Record<string, number>>;
    total: number;
    /** Consecutive 429s the config holds: endpoint → after how many calls, how many. */
    bursts: Record<string, { after: number; size: number }>;
    /** Pipelines tied to at least one injected fault (a lower bound; see the report). */
    pipelinesHit: number;
  };
  callbacks: InspectionSnapshot['counters']['callbacks'];
  rateLimited429: Record<string, number>;
  /** Of those, the ones no fault injected (the vendor's own limits). */
  natural429: Record<string, number>;
  /** Most GetAsset requests of one access token the emulator received within 1 s (sliding), per token label. */
  getAssetBusiestWindow: Record<string, BusiestWindow>;
  vendorRequests: number;
  kills: KillRecord[];
  unexpectedWorkerExits: { atMs: number; worker: string; code: number | null; signal: string | null }[];
  restarts: RestartRecord[];
  operator: { decisions: Record<'taskId' | 'resubmit', number>; failedAttempts: number; log: OperatorDecision[] };
  pipelines: {
    started: number;
    arrivals: { atOnce: number; overMs: number };
    byState: Record<string, number>;
    expectedFailures: number;
    durationMs: { p50: number; p95: number; max: number };
    vendorTasks: Record<string, number>;
  };
  /** Absent until the ledger checks ran. */
  ledger?: ChaosLedgerMoves;
  invariants: InvariantResult[];
  pass: boolean;
}
