import { temporal } from '@temporalio/proto';
import { countRun } from '../../tools/bench/history-counts';

const T = temporal.api.enums.v1.EventType;

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
  expect(countRun(events)).toEqual({ events: 9, workflowTasks: 2, nextRunId: 'run-2' });
  expect(countRun(events.slice(0, 8))).toEqual({ events: 8, workflowTasks: 2 });
  expect(countRun([])).toEqual({ events: 0, workflowTasks: 0 });
});
