/**
 * Task faults (TASK_FAULT_KINDS in faults.ts): rolled once when a create answers 2xx,
 * kept on the new task's record, and shown by that task's queries:
 * - readLag: queries answer "not found" for `ms` after the create answered;
 * - unknownState: queries report `state` for the first `queries` of them, or forever;
 * - expire: a generation task ends `expired` instead of its planned end.
 */
import type { EmulatorContext } from './context';
import type { EndpointKey, Injected, TaskFaultKind } from './faults';
import type { Staged } from './stages';
import type { TaskQuirks } from './store';

type Roll = (kind: TaskFaultKind) => Injected | undefined;

function taskOf(ctx: EmulatorContext, key: EndpointKey, id: string): TaskQuirks | undefined {
  switch (key) {
    case 'generation.create':
      return ctx.store.generation.get(id);
    case 'erase.create':
      return ctx.store.erase.get(id);
    case 'review.async':
    case 'review.sync':
      return ctx.store.review.get(id);
    case 'assets.CreateAsset':
      return ctx.store.assets.get(id);
    default:
      return undefined;
  }
}

/** Decides the task faults of the task `id` that the create `key` just made. */
export function applyTaskFaults(ctx: EmulatorContext, key: EndpointKey, id: string | undefined, roll: Roll): void {
  const task = id === undefined ? undefined : taskOf(ctx, key, id);
  if (!task) return;
  const lag = roll('readLag');
  if (lag) task.quirks = { ...task.quirks, hiddenUntilMs: ctx.clock.now() + (lag.ms ?? 0) };
  const unknown = roll('unknownState');
  if (unknown?.state) {
    task.quirks = { ...task.quirks, fakeState: { state: unknown.state, remaining: unknown.queries ?? Infinity } };
  }
  const generation = key === 'generation.create' ? ctx.store.generation.get(id!) : undefined;
  const end = generation?.plan[generation.plan.length - 1];
  if (end && roll('expire')) end.status = 'expired';
}

/** Whether queries must not see the task yet (read-after-write lag). */
export function hiddenFromQueries(ctx: EmulatorContext, task: TaskQuirks): boolean {
  return (task.quirks?.hiddenUntilMs ?? -Infinity) > ctx.clock.now();
}

/** The state one answered query reports: a configured unknown state while it lasts, else the real one. */
export function reportedState(task: Staged<string> & TaskQuirks): string {
  const fake = task.quirks?.fakeState;
  if (!fake || fake.remaining <= 0) return task.status;
  fake.remaining -= 1;
  return fake.state;
}
