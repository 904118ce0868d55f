/**
 * Time-driven state machines. A resource is created with a plan (future states with
 * the emulator time each is due); the scheduler moves it through every due state,
 * stamping each with its planned time — so after a clock jump, timestamps stay as if
 * the emulator had been watching all along.
 */
export interface Transition<S extends string> {
  status: S;
  atMs: number;
}

export interface Staged<S extends string> {
  status: S;
  updatedAtMs: number;
  history: Transition<S>[];
  /** States still to come, in order; empty once terminal. */
  plan: Transition<S>[];
}

export function staged<S extends string>(first: S, atMs: number, next: [S, number][]): Staged<S> {
  const plan: Transition<S>[] = [];
  let at = atMs;
  for (const [status, afterMs] of next) {
    at += afterMs;
    plan.push({ status, atMs: at });
  }
  return { status: first, updatedAtMs: atMs, history: [{ status: first, atMs }], plan };
}

/** Applies every due transition, calling onEnter for each state entered, in order. */
export function advanceDue<S extends string>(rec: Staged<S>, nowMs: number, onEnter: (t: Transition<S>) => void): void {
  while (rec.plan.length > 0 && rec.plan[0].atMs <= nowMs) {
    const t = rec.plan.shift()!;
    enter(rec, t);
    onEnter(t);
  }
}

/** Jumps straight to a state (admin cancel, sync review, delete), dropping the plan. */
export function forceTo<S extends string>(rec: Staged<S>, status: S, atMs: number): Transition<S> {
  rec.plan = [];
  const t = { status, atMs };
  enter(rec, t);
  return t;
}

function enter<S extends string>(rec: Staged<S>, t: Transition<S>): void {
  rec.status = t.status;
  rec.updatedAtMs = t.atMs;
  rec.history.push(t);
}
