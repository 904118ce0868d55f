/** Settings every stage module gets from the pipeline options. */
export interface StageCommon {
  pipelineId: string;
  profile: string;
  callbacks: boolean;
  callbackGraceMs: number;
  deadlineMs: number;
  /** Start-to-close bound of one create attempt (see definition deadlines.createAttempt). */
  createAttemptMs: number;
  /** How long a just-issued task id may answer "not found" (read-after-write lag). */
  notFoundGraceMs: number;
}
