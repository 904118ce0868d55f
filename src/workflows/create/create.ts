/**
 * Create without duplicates (src/workflows/create/README.md; docs/architecture.md, "Create without duplicates"). The vendor has no idempotency key, so:
 * a create runs once per attempt; provably-unsent and rate-limited requests are retried;
 * rejected ones fail the stage naming the field; an AMBIGUOUS outcome is reconciled
 * (by name, or by a callback naming a task that passes the proof of offers.ts) and never
 * blindly resubmitted — when reconcile finds nothing, the pipeline's policy decides:
 * `resubmit` or `ask` an operator. A task id offered and refused means a task may exist:
 * then an operator is asked whatever the policy, with every offered id and why it failed.
 */
import { ActivityFailure, ApplicationFailure, sleep } from '@temporalio/workflow';
import type { PulledAnswer, PulledAsk } from '../../contract/ledger';
import { RATE_LIMIT_FLOOR_MS, RATE_LIMIT_WAIT_MS } from '../../vendor-api/assumed-values';
import type { CreateDecision, VendorTaskKind, VendorTaskRecord } from '../../contract/messages';
import type { ProofSpec } from '../../contract/carry';
import { classifyCreateFailure, stageFailure, type CreateOutcome } from '../lib/failures';
import { holdFor, interfaceOf } from './holds';
import { countReconcile } from '../lib/status/metrics';
import type { ReconcileOutcome } from '../../metrics/names';
import { duration } from '../lib/status/summaries';
import type { CreateDesk, CreateRuntime } from './desk';
import { FailureType } from '../../failures';

export type CreatePolicy = 'resubmit' | 'ask';

export interface CreateSpec<T> {
  rt: CreateRuntime;
  step: string;
  kind: VendorTaskKind;
  /** Human label for messages, e.g. "generation create". */
  label: string;
  /** What the create does, as Web UI summaries name it after the stage: "create task", "submit batch 0". */
  action: string;
  policy: CreatePolicy;
  /** Endpoint name counted per call, e.g. "generation.create". */
  endpoint: string;
  firstAttempt?: number;
  /** `grant`: the plan's ask the create reads before its vendor call, while unread (spend.ts). */
  create(attempt: number, grant?: PulledAsk): Promise<T>;
  taskIdOf(value: T): string;
  /** Looks for the task an ambiguous attempt may have created. */
  reconcile(attempt: number): Promise<T | undefined>;
  /** Builds a value from a task id learned from a callback or an operator. */
  fromTaskId(taskId: string): T;
  /** How a task id offered by a callback is checked; without it no offer is adopted. */
  proof?: ProofSpec;
  /** Gives up after this many retryable failures in a row (not sent, 429, 502): an outage, not a blip. */
  maxRetries?: number;
}

export interface Created<T> {
  value: T;
  attempt: number;
  via: VendorTaskRecord['via'];
}

/** Policy `resubmit` gives up after this many ambiguous outcomes in a row. */
export const MAX_AMBIGUOUS_RESUBMITS = 3;

const backoff = (n: number) => Math.min(1_000 * 2 ** n, 60_000);

/** The create loop's state: the attempt in flight and the counts that end the loop. */
interface CreateRun<T> {
  spec: CreateSpec<T>;
  iface: string;
  attempt: number;
  /** Retryable failures in a row (not sent, 429, 502). */
  transient: number;
  /** Blind resubmits after ambiguous outcomes (policy `resubmit`). */
  resubmits: number;
}

/**
 * The loop. Every await stays in this function, at the depth it always had, and the
 * decisions between them are synchronous helpers: parallel creates (review batches, asset
 * items) resumed by one activation must issue their commands in the order recorded
 * histories hold, and an extra async layer would shift that order.
 */
export async function createWithoutDuplicates<T>(spec: CreateSpec<T>): Promise<Created<T>> {
  const { rt, step } = spec;
  const known = rt.board.knownTask(step);
  // Recorded by this pipeline before it continued as new: the task exists, never create it again.
  if (known) return adoptKnown(spec, known);
  const run = newRun(spec);
  // A run before continue-as-new left this step's outcome unknown: reconcile it again, never create.
  let resumed = rt.creates.ambiguousAttempt(step);
  if (resumed !== undefined) run.attempt = resumed;
  for (;;) {
    let outcome: CreateOutcome | undefined;
    // An operator wait in progress when the pipeline continued as new: straight back to it.
    let waitResumed = false;
    if (resumed !== undefined) {
      outcome = { kind: 'ambiguous', message: 'the outcome was still unknown when the pipeline continued as new' };
      waitResumed = rt.creates.operator.resumesWait(step, run.attempt);
      resumed = undefined;
    } else {
      await holdFor(rt.creates.holds, run.iface, (ms) =>
        rt.board.summary(`${spec.action}: wait ${duration(ms)} (the vendor's Retry-After)`),
      );
      const grant = await rt.creates.take(step, run.attempt, spec.kind);
      rt.book.beginAttempt(step, run.attempt, spec.kind, spec.proof);
      rt.board.count(spec.endpoint);
      try {
        const value = await creating(rt.creates, () => spec.create(run.attempt, grant));
        rt.book.endAttempt(step, run.attempt, spec.taskIdOf(value));
        if (grant) rt.creates.grantRead();
        return recorded(run, value, spec.taskIdOf(value), 'create');
      } catch (err) {
        rt.book.endAttempt(step, run.attempt);
        const refused = notGranted(err);
        // Nothing was sent: the same attempt again once the plan is granted (spend.ts, regrant).
        if (refused) await regrantFor(run, refused.answer);
        else outcome = classifyCreateFailure(err);
      }
    }
    if (!outcome) continue;
    // Spend (spend.ts): released when provably not created; after a 502 or ambiguity, once reconciled.
    if (outcome.kind !== 'ambiguous' && outcome.kind !== 'retryLater') rt.creates.settle(step, run.attempt, 'release');
    if (outcome.kind === 'fatal') throw rejected(spec, outcome);
    if (outcome.kind === 'ambiguous') rt.creates.setAmbiguous(step, run.attempt);
    else await sleep(...retryWait(run, outcome));
    if (outcome.kind === 'retryLater' || (outcome.kind === 'ambiguous' && !waitResumed)) {
      // After a 502 ("retry later") look first too: a name match is cheap and exact.
      const found = await spec.reconcile(run.attempt);
      if (found !== undefined) return reconciled(run, found, outcome.kind);
    }
    if (outcome.kind === 'ambiguous') {
      const reason = resubmitOrAsk(run, outcome.message, waitResumed);
      if (reason !== undefined) {
        const created = decided(run, await rt.creates.operator.awaitDecision(step, run.attempt, reason));
        if (created) return created;
      }
    }
    rt.creates.settle(step, run.attempt, 'release');
    run.attempt++;
  }
}

function newRun<T>(spec: CreateSpec<T>): CreateRun<T> {
  return { spec, iface: interfaceOf(spec.endpoint), attempt: spec.firstAttempt ?? 1, transient: 0, resubmits: 0 };
}

/** The attempt sent nothing: its count and its create are given back, and the plan asked for again. */
function regrantFor<T>(run: CreateRun<T>, answer: PulledAnswer): Promise<void> {
  const { rt, step, endpoint } = run.spec;
  rt.board.count(endpoint, -1);
  rt.creates.settle(step, run.attempt, 'release');
  return rt.creates.regrant(answer);
}

/** A create activity that found its plan not granted (SpendNotGranted): it sent nothing. */
function notGranted(err: unknown): { answer: PulledAnswer } | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || cause.type !== FailureType.SpendNotGranted) return undefined;
  const answer: unknown = cause.details?.[0];
  return { answer: typeof answer === 'object' ? (answer as PulledAnswer) : null };
}

/**
 * Runs one create activity, counted so that continue-as-new never abandons its answer. One
 * async layer, as it always had: parallel creates resume in the order histories hold.
 */
async function creating<T>(desk: CreateDesk, create: () => Promise<T>): Promise<T> {
  desk.createSent();
  try {
    return await create();
  } finally {
    desk.createAnswered();
  }
}

function adoptKnown<T>(spec: CreateSpec<T>, known: VendorTaskRecord): Created<T> {
  spec.rt.book.beginAttempt(spec.step, known.attempt, spec.kind, spec.proof);
  spec.rt.book.endAttempt(spec.step, known.attempt, known.id);
  return { value: spec.fromTaskId(known.id), attempt: known.attempt, via: known.via };
}

/** Records the step's task and returns it as created. */
function recorded<T>(run: CreateRun<T>, value: T, id: string, via: VendorTaskRecord['via']): Created<T> {
  const { rt, kind, step } = run.spec;
  rt.creates.record({ kind, id, step, attempt: run.attempt, via });
  rt.creates.settle(step, run.attempt, 'confirm');
  return { value, attempt: run.attempt, via };
}

function rejected<T>(spec: CreateSpec<T>, outcome: Extract<CreateOutcome, { kind: 'fatal' }>): ApplicationFailure {
  // The vendor's code too: PipelineFailedError.vendorCode reads it.
  const code = outcome.vendorCode !== undefined ? { vendorCode: outcome.vendorCode } : {};
  return stageFailure(`${spec.label} rejected: ${outcome.message}`, outcome.type, { field: outcome.field, ...code });
}

/**
 * The wait before the next attempt after a retryable failure (sleep's arguments). Counts
 * the failure: past the limit the vendor is down, not blipping, and the stage stops.
 */
function retryWait<T>(
  run: CreateRun<T>,
  outcome: Extract<CreateOutcome, { kind: 'notSent' | 'rateLimited' | 'retryLater' }>,
): [number, { summary: string }] {
  const { spec } = run;
  if (++run.transient > (spec.maxRetries ?? 20)) {
    throw stageFailure(
      `${spec.label}: still failing after ${run.transient - 1} retries (${outcome.message}); the pipeline stops here`,
      FailureType.VendorUnavailable,
    );
  }
  const wait = (ms: number, why: string): [number, { summary: string }] => [
    ms,
    { summary: spec.rt.board.summary(`${spec.action}: ${why}, retry in ${duration(ms)}`) },
  ];
  if (outcome.kind === 'notSent') return wait(backoff(run.transient - 1), 'not sent');
  if (outcome.kind === 'retryLater') return wait(backoff(run.transient - 1), 'vendor upstream failed');
  spec.rt.creates.holds.hold(run.iface, Date.now() + (outcome.retryAfterMs ?? 0));
  return wait(Math.max(outcome.retryAfterMs ?? RATE_LIMIT_WAIT_MS, RATE_LIMIT_FLOOR_MS), 'rate limited (Retry-After)');
}

/** The task reconcile found: proven by a callback, or matched by name. */
function reconciled<T>(run: CreateRun<T>, found: T, after: 'retryLater' | 'ambiguous'): Created<T> {
  const { spec } = run;
  const id = spec.taskIdOf(found);
  const byCallback = after === 'ambiguous' && spec.rt.book.provenTask(spec.step, run.attempt) === id;
  countReconcile(spec.kind, byCallback ? 'found_by_callback' : 'found_by_name');
  return recorded(run, found, id, byCallback ? 'callback' : 'reconcile-name');
}

/**
 * Reconcile found nothing: policy `resubmit` (no callback offered a task) tries again,
 * else the reason an operator is asked.
 */
function resubmitOrAsk<T>(run: CreateRun<T>, message: string, waitResumed: boolean): string | undefined {
  const { spec } = run;
  const offered = spec.rt.book.hasOffers(spec.step, run.attempt);
  // A wait resumed after continue-as-new was already asked: it stays an operator's to end.
  if (spec.policy === 'resubmit' && !offered && !waitResumed) {
    // Each blind resubmit may duplicate: a vendor that keeps answering ambiguously stops the stage.
    if (++run.resubmits > MAX_AMBIGUOUS_RESUBMITS) {
      throw stageFailure(
        `${spec.label}: outcome unknown ${run.resubmits} times in a row (${message}); not resubmitting again`,
        FailureType.AmbiguousCreate,
      );
    }
    spec.rt.creates.setAmbiguous(spec.step, undefined);
    countReconcile(spec.kind, 'resubmitted');
    return undefined;
  }
  // A wait resumed after continue-as-new was counted when it began.
  if (!waitResumed) countReconcile(spec.kind, 'waited');
  return (
    `${spec.label} outcome unknown (${message}); reconcile found no task` +
    `${offered ? ' that passes the proof, and a task may exist' : ''}. ` +
    'Look it up in the vendor console, then resolve with its task id, or resubmit.'
  );
}

/** An operator's decision (or a callback's proven task): the task, or undefined to resubmit. */
function decided<T>(run: CreateRun<T>, decision: CreateDecision | { proven: string }): Created<T> | undefined {
  const { spec } = run;
  countReconcile(spec.kind, decisionOutcome(decision));
  if ('proven' in decision) return recorded(run, spec.fromTaskId(decision.proven), decision.proven, 'callback');
  if ('taskId' in decision) return recorded(run, spec.fromTaskId(decision.taskId), decision.taskId, 'operator');
  if ('abandon' in decision) {
    throw stageFailure(`${spec.label} abandoned by an operator after an ambiguous create`, FailureType.CreateAbandoned);
  }
  spec.rt.creates.setAmbiguous(spec.step, undefined);
  return undefined;
}

function decisionOutcome(decision: CreateDecision | { proven: string }): ReconcileOutcome {
  if ('proven' in decision) return 'found_by_callback';
  if ('taskId' in decision) return 'found_by_operator';
  return 'abandon' in decision ? 'abandoned' : 'resubmitted';
}
