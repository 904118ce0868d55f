/**
 * Rerun never pays twice (docs/cli.md, "Rerun: reuse paid work"): a paid task (generation,
 * erase) that the source run left in a state that is not terminal, or never saw a state
 * of, may still succeed at the vendor. A rerun that redoes its step with the same inputs
 * (every stage before it reused) adopts that task and polls it; one that would feed the
 * step new inputs is refused, naming the task and its state. Shared by `planRerun`
 * (client side) and the workflow (a raw start skips the client). Pure, workflow-safe.
 */
import { STAGES, type StageName, type VendorTaskRecord } from './messages';
import { isTerminalState } from './task-states';
import { SINGLE_TASK_STAGES } from './stages';

/** The steps whose single paid task a rerun could create a second time. */
const PAID_STEPS = SINGLE_TASK_STAGES;

export interface SourceTaskRule {
  /** The source's tasks this run takes over (its create step adopts them, never creates). */
  adopt: VendorTaskRecord[];
  /** Why the rerun is refused: a task that may still succeed, for a step redone with new inputs. */
  refusal?: { message: string; task: VendorTaskRecord };
}

/** The source task of `step` that may still succeed, if any (superseded attempts' orphans aside). */
export function liveTask(tasks: readonly VendorTaskRecord[], step: StageName): VendorTaskRecord | undefined {
  return tasks.find((t) => t.step === step && !t.orphan && !isTerminalState(t.state));
}

/**
 * @param defined the stages the definition runs
 * @param reused the stages whose outputs are reused
 * @param tasks the source run's vendor tasks
 */
export function sourceTaskRule(
  sourceId: string,
  defined: readonly StageName[],
  reused: readonly StageName[],
  tasks: readonly VendorTaskRecord[],
): SourceTaskRule {
  const adopt: VendorTaskRecord[] = [];
  for (const step of PAID_STEPS) {
    const task = liveTask(tasks, step);
    if (!task || !defined.includes(step) || reused.includes(step)) continue;
    const before = STAGES.slice(0, STAGES.indexOf(step)).filter((s) => defined.includes(s));
    const redone = before.filter((s) => !reused.includes(s));
    if (redone.length === 0) {
      adopt.push(task);
      continue;
    }
    const message =
      `${step} task ${task.id} of ${sourceId} is ${task.state ?? 'in an unknown state'} and may still succeed ` +
      `at the vendor; a rerun that redoes ${redone.join(', ')} would pay for a second ${step}. ` +
      `Rerun from ${step} to adopt it, or wait until it ends`;
    return { adopt, refusal: { message, task } };
  }
  return { adopt };
}
