import { temporal } from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time';
import { countRun } from '../../tools/bench/history-counts';

const T = temporal.api.enums.v1.EventType;
const at = (ms: number) => ({ eventTime: msToTs(1_700_000_000_000 + ms) });

test('a run: its events, its completed workflow tasks and the run it continued as', () => {
  const events = [
    { eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_FAILED },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED },
    {
      eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
      workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: 'run-2' },
    },
  ];
  const untimed = { taskQueuedMs: 0, taskRunningMs: 0, taskTimeouts: 0 };
  expect(countRun(events)).toEqual({ events: 9, workflowTasks: 2, nextRunId: 'run-2', ...untimed });
  expect(countRun(events.slice(0, 8))).toEqual({ events: 8, workflowTasks: 2, ...untimed });
  expect(countRun([])).toEqual({ events: 0, workflowTasks: 0, ...untimed });
});

test("workflow tasks' time: queued from scheduled to started, running from started to completed or failed", () => {
  const events = [
    { eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, ...at(0) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, ...at(0) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED, ...at(300) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, ...at(340) },
    { eventType: T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, ...at(340) },
    { eventType: T.EVENT_TYPE_TIMER_STARTED, ...at(340) },
    { eventType: T.EVENT_TYPE_TIMER_FIRED, ...at(5_340) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, ...at(5_340) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED, ...at(5_350) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_FAILED, ...at(5_360) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, ...at(5_400) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED, ...at(5_500) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, ...at(5_520) },
    // A task still open when the history was read counts only its queued time.
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, ...at(6_000) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED, ...at(6_050) },
  ];
  expect(countRun(events)).toMatchObject({
    workflowTasks: 2,
    taskQueuedMs: 300 + 10 + 100 + 50,
    taskRunningMs: 40 + 10 + 20,
  });
});

test("a ledger answer's wait, from the first spendAnswered signal to the workflow task that reads it, and tasks timed out", () => {
  const signal = (ms: number) => ({
    eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    workflowExecutionSignaledEventAttributes: { signalName: 'spendAnswered' },
    ...at(ms),
  });
  const events = [
    { eventType: T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, ...at(0) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, ...at(0) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED, ...at(100) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, ...at(150) },
    signal(900),
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, ...at(900) },
    {
      eventType: T.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
      workflowTaskTimedOutEventAttributes: {
        timeoutType: temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
      },
      ...at(10_900),
    }, // the sticky queue's timeout
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, ...at(10_900) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED, ...at(12_400) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, ...at(12_450) },
    {
      eventType: T.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, // started, then too slow: not a wait for a worker
      workflowTaskTimedOutEventAttributes: {
        timeoutType: temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE,
      },
      ...at(15_000),
    },
    signal(20_000), // a later answer (an extra reservation) is not the first one's
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, ...at(20_000) },
    { eventType: T.EVENT_TYPE_WORKFLOW_TASK_STARTED, ...at(20_010) },
  ];
  expect(countRun(events)).toMatchObject({ answerWaitMs: 12_400 - 900, taskTimeouts: 1 });
  expect(countRun(events.slice(0, 6)).answerWaitMs).toBeUndefined(); // not read yet
  expect(countRun(events.slice(0, 4)).answerWaitMs).toBeUndefined(); // no answer (no budget)
});
