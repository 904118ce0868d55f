/**
 * A pipeline's runs (docs/cli.md, "Rerun: reuse paid work"). A run id names one run of a
 * workflow id. A pipeline that continues as new is a chain of runs under one id: each run's
 * continue-as-new starts the next one and carries its state, so only the chain's last run
 * holds every vendor task the chain created. A rerun that names an earlier link stands for
 * that last run (client side) or is refused (the workflow's `readReuseSource`).
 *
 * The chain is followed through its continue-as-new links (each such run's close event names
 * the run it started), not by asking the workflow id for its latest run: once the chain has
 * ended, the id may have been used again by another pipeline, a different chain that holds
 * none of this one's tasks. A chain that still runs has no last run yet: refused as running.
 * Retries and cron runs are not followed (a pipeline is started with neither). Pure.
 */

/** A Temporal run id (a UUID). */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isRunId = (value: unknown): value is string => typeof value === 'string' && RUN_ID.test(value);

/** The status name of a run that continued as new (Temporal's WorkflowExecutionStatus). */
export const CONTINUED_AS_NEW = 'CONTINUED_AS_NEW';

/** A run as a describe shows it: enough to follow its chain. */
export interface ChainRun {
  runId: string;
  status: { name: string };
}

/**
 * The last run of `run`'s chain: `run` itself unless it continued as new, else the run its
 * continue-as-new started, and so on. `next` describes the run a continued one started.
 */
export async function lastRunOfChain<R extends ChainRun>(run: R, next: (continued: R) => Promise<R>): Promise<R> {
  let last = run;
  while (last.status.name === CONTINUED_AS_NEW) last = await next(last);
  return last;
}
