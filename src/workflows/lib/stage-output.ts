import type { VendorTaskRecord } from '../messages';

/** What every stage child returns: its result plus the bookkeeping the parent merges. */
export interface StageOutput<T> {
  result: T;
  vendorTasks: VendorTaskRecord[];
  calls: Record<string, number>;
  /** Final detail and progress: the last report signal may reach the parent after the result. */
  detail?: string;
  progress?: { done: number; total: number };
}

/** Settings every stage child gets from the pipeline options. */
export interface StageCommon {
  pipelineId: string;
  profile: string;
  callbacks: boolean;
  callbackGraceMs: number;
  deadlineMs: number;
  /** Start-to-close bound of one create attempt (see definition deadlines.createAttempt). */
  createAttemptMs: number;
  /** Continue as new past this many history events (optional: older histories lack it). */
  historyLimit?: number;
  /** How long a just-issued task id may answer "not found" (read-after-write lag). */
  notFoundGraceMs?: number;
}
