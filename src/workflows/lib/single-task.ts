/**
 * The shape shared by the generation and erase stages: create ONE paid vendor task
 * without duplicates (reconcile by callback), then poll it to a terminal state. After a
 * continue-as-new the recorded task is polled again, never created again (create/create.ts).
 */
import { createWithoutDuplicates, type CreatePolicy } from '../create/create';
import { waitForCallbackTaskId } from '../create/callback-grace';
import type { OfferExpectation } from '../../contract/offers';
import type { PollPolicy } from '../../contract/poll-policy';
import { pollUntilDone } from './poll/poll';
import type { PipelineRuntime } from './pipeline-runtime';
import type { StageCommon } from './stage-common';
import type { CallbackRef } from '../../activities/vendor';
import type { PulledAsk } from '../../contract/ledger';
import type { SingleTaskKind } from '../../contract/stages';

export interface SingleTaskInput extends StageCommon {
  policy: CreatePolicy;
}

export interface SingleTaskSpec<Q extends { status: string }> {
  rt: PipelineRuntime;
  input: SingleTaskInput;
  kind: SingleTaskKind;
  /** Endpoint names counted per call. */
  endpoints: { create: string; query: string };
  policy: PollPolicy;
  terminal: readonly string[];
  /** What the create asks for, compared with a task a callback offers (e.g. the model). */
  expect?: OfferExpectation;
  /** Every state the vendor is known to report; others are shown as not understood and polled on. */
  known: readonly string[];
  /** One create attempt; `callback` is set when callbacks are on, `grant` while the plan's grant is unread (spend.ts). */
  create(attempt: number, callback: CallbackRef | undefined, grant: PulledAsk | undefined): Promise<{ taskId: string }>;
  query(taskId: string): Promise<Q>;
}

export async function createAndPollSingleTask<Q extends { status: string }>(
  spec: SingleTaskSpec<Q>,
): Promise<{ taskId: string; task: Q }> {
  const { rt, input, kind } = spec;
  const step = kind;
  const created = await createWithoutDuplicates({
    rt,
    step,
    kind,
    label: `${kind} create`,
    action: 'create task',
    endpoint: spec.endpoints.create,
    policy: input.policy,
    create: (n, grant) => spec.create(n, input.callbacks ? rt.book.callbackRef(step, n) : undefined, grant),
    taskIdOf: (v) => v.taskId,
    reconcile: async (n) => {
      const id = await waitForCallbackTaskId(rt, step, n, input.callbacks, input.callbackGraceMs);
      return id ? { taskId: id } : undefined;
    },
    fromTaskId: (id) => ({ taskId: id }),
    proof: { profile: input.profile, kind, endpoint: spec.endpoints.query, expect: spec.expect ?? {} },
  });
  const { taskId } = created.value;
  const task = await pollUntilDone({
    rt,
    step,
    label: `${kind} task ${taskId}`,
    subject: taskId,
    endpoint: spec.endpoints.query,
    policy: spec.policy,
    callbacks: input.callbacks,
    deadlineMs: input.deadlineMs,
    startedAt: rt.board.recordedAt(step),
    query: () => spec.query(taskId),
    done: (t) => spec.terminal.includes(t.status),
    states: { of: (t) => t.status, known: spec.known },
    notFoundGraceMs: input.notFoundGraceMs,
    onValue: (t) => {
      if (rt.board.vendorTasks.find((x) => x.id === taskId)?.state !== t.status) {
        rt.board.setState(kind, taskId, t.status);
        rt.board.detail = `vendor ${t.status}`; // the id is in the vendor tasks column
        rt.board.refresh();
      }
    },
  });
  rt.book.settle(step);
  return { taskId, task };
}
