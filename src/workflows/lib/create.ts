/**
 * Create without duplicates (DESIGN.md §1). The vendor has no idempotency key, so:
 * a create runs once per attempt; provably-unsent and rate-limited requests are retried;
 * rejected ones fail the stage naming the field; an AMBIGUOUS outcome is reconciled
 * (by name, or by a callback naming a task that passes the proof of offers.ts) and never
 * blindly resubmitted — when reconcile finds nothing, the pipeline's policy decides:
 * `resubmit` or `ask` an operator. A task id offered and refused means a task may exist:
 * then an operator is asked whatever the policy, with every offered id and why it failed.
 */
import { ApplicationFailure, condition, sleep } from '@temporalio/workflow';
import { RATE_LIMIT_FLOOR_MS, RATE_LIMIT_WAIT_MS } from '../../vendor-api/assumed-values';
import type { VendorTaskKind, VendorTaskRecord } from '../messages';
import type { ProofSpec } from './callback-book';
import { classifyCreateFailure, type CreateOutcome } from './failures';
import { holdUntil, interfaceOf } from './holds';
import type { PipelineRuntime } from './pipeline-runtime';
import { FailureType } from '../../failures';

export type CreatePolicy = 'resubmit' | 'ask';

export interface CreateSpec<T> {
  rt: PipelineRuntime;
  step: string;
  kind: VendorTaskKind;
  /** Human label for messages and timer summaries, e.g. "generation create". */
  label: string;
  policy: CreatePolicy;
  /** Endpoint name counted per call, e.g. "generation.create". */
  endpoint: string;
  firstAttempt?: number;
  create(attempt: number): Promise<T>;
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

export function stageFailure(message: string, type: FailureType, details?: unknown): ApplicationFailure {
  return ApplicationFailure.create({
    message,
    type,
    nonRetryable: true,
    details: details === undefined ? [] : [details],
  });
}

export async function createWithoutDuplicates<T>(spec: CreateSpec<T>): Promise<Created<T>> {
  const { rt, step, kind } = spec;
  let attempt = spec.firstAttempt ?? 1;
  let transient = 0;
  let resubmits = 0;
  const giveUp = (message: string) =>
    stageFailure(
      `${spec.label}: still failing after ${transient - 1} retries (${message}); the pipeline stops here`,
      FailureType.VendorUnavailable,
    );
  const known = rt.knownTask(step);
  if (known) {
    // Recorded by this pipeline before it continued as new: the task exists, never create it again.
    rt.beginAttempt(step, known.attempt, kind, spec.proof);
    rt.endAttempt(step, known.attempt, known.id);
    return { value: spec.fromTaskId(known.id), attempt: known.attempt, via: known.via };
  }
  const iface = interfaceOf(spec.endpoint);
  // A run before continue-as-new left this step's outcome unknown: reconcile it again, never create.
  let resumed = rt.ambiguousAttempt(step);
  if (resumed !== undefined) attempt = resumed;
  for (;;) {
    let outcome: CreateOutcome;
    if (resumed !== undefined) {
      outcome = { kind: 'ambiguous', message: 'the outcome was still unknown when the pipeline continued as new' };
      resumed = undefined;
    } else {
      await holdUntil(rt.notBefore(iface), `${spec.label}: waiting out the vendor's Retry-After`);
      rt.beginAttempt(step, attempt, kind, spec.proof);
      rt.count(spec.endpoint);
      try {
        const value = await rt.creating(() => spec.create(attempt));
        rt.endAttempt(step, attempt, spec.taskIdOf(value));
        rt.record({ kind, id: spec.taskIdOf(value), step, attempt, via: 'create' });
        return { value, attempt, via: 'create' };
      } catch (err) {
        rt.endAttempt(step, attempt);
        outcome = classifyCreateFailure(err);
      }
    }
    switch (outcome.kind) {
      case 'fatal':
        throw stageFailure(`${spec.label} rejected: ${outcome.message}`, outcome.type, { field: outcome.field });
      case 'notSent':
        if (++transient > (spec.maxRetries ?? 20)) throw giveUp(outcome.message);
        await sleep(backoff(transient - 1), { summary: `${spec.label}: not sent, retrying` });
        attempt++;
        continue;
      case 'rateLimited':
        if (++transient > (spec.maxRetries ?? 20)) throw giveUp(outcome.message);
        rt.holdInterface(iface, Date.now() + (outcome.retryAfterMs ?? 0));
        await sleep(Math.max(outcome.retryAfterMs ?? RATE_LIMIT_WAIT_MS, RATE_LIMIT_FLOOR_MS), {
          summary: `${spec.label}: rate limited (Retry-After)`,
        });
        attempt++;
        continue;
      case 'retryLater': {
        if (++transient > (spec.maxRetries ?? 20)) throw giveUp(outcome.message);
        await sleep(backoff(transient - 1), { summary: `${spec.label}: vendor upstream failed, retrying` });
        // The 502 said "retry later", but look first: a name match is cheap and exact.
        const found = await spec.reconcile(attempt);
        if (found !== undefined) {
          rt.record({ kind, id: spec.taskIdOf(found), step, attempt, via: 'reconcile-name' });
          return { value: found, attempt, via: 'reconcile-name' };
        }
        attempt++;
        continue;
      }
      case 'ambiguous': {
        rt.setAmbiguous(step, attempt);
        const found = await spec.reconcile(attempt);
        if (found !== undefined) {
          const via = rt.provenTask(step, attempt) === spec.taskIdOf(found) ? 'callback' : 'reconcile-name';
          rt.record({ kind, id: spec.taskIdOf(found), step, attempt, via });
          return { value: found, attempt, via };
        }
        const offered = rt.hasOffers(step, attempt);
        if (spec.policy === 'resubmit' && !offered) {
          // Each blind resubmit may duplicate: a vendor that keeps answering ambiguously stops the stage.
          if (++resubmits > MAX_AMBIGUOUS_RESUBMITS) {
            throw stageFailure(
              `${spec.label}: outcome unknown ${resubmits} times in a row (${outcome.message}); not resubmitting again`,
              FailureType.AmbiguousCreate,
            );
          }
          rt.setAmbiguous(step, undefined);
          attempt++;
          continue;
        }
        const decision = await rt.awaitDecision(
          step,
          attempt,
          `${spec.label} outcome unknown (${outcome.message}); reconcile found no task` +
            `${offered ? ' that passes the proof, and a task may exist' : ''}. ` +
            'Look it up in the vendor console, then resolve with its task id, or resubmit.',
        );
        if ('proven' in decision) {
          const value = spec.fromTaskId(decision.proven);
          rt.record({ kind, id: decision.proven, step, attempt, via: 'callback' });
          return { value, attempt, via: 'callback' };
        }
        if ('taskId' in decision) {
          const value = spec.fromTaskId(decision.taskId);
          rt.record({ kind, id: decision.taskId, step, attempt, via: 'operator' });
          return { value, attempt, via: 'operator' };
        }
        if ('abandon' in decision) {
          throw stageFailure(
            `${spec.label} abandoned by an operator after an ambiguous create`,
            FailureType.CreateAbandoned,
          );
        }
        rt.setAmbiguous(step, undefined);
        attempt++;
        continue;
      }
    }
  }
}

/**
 * Reconcile by callback: wait a bounded grace period for a callback of this attempt that
 * names a task passing the proof (offers.ts). Refused ids do not end the wait.
 */
export async function waitForCallbackTaskId(
  rt: PipelineRuntime,
  step: string,
  attempt: number,
  callbacksUsed: boolean,
  graceMs: number,
): Promise<string | undefined> {
  if (!callbacksUsed) return undefined;
  const until = Date.now() + graceMs;
  // A flood of callbacks grows the history: continue as new when long (the grace starts again there).
  while (rt.provenTask(step, attempt) === undefined && Date.now() < until) {
    await condition(() => rt.provenTask(step, attempt) !== undefined || rt.historyLong(), until - Date.now());
    await rt.checkpoint();
  }
  return rt.provenTask(step, attempt);
}
