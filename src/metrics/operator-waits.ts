/**
 * reelflow_operator_waits: how many running pipelines of a task queue wait for an
 * operator now. Counted from visibility (the ReelflowStatus search attribute), not from
 * workflow code: a count kept by workflows would be lost with the process that held it,
 * or go negative when another worker sees the wait end. Every worker process of the
 * queue reports the same number (aggregate with max, not sum). Running only: a
 * terminated pipeline keeps its last status.
 */
import type { MetricGauge, MetricMeter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { STATUS } from '../contract/search-attributes';
import { METRICS } from './names';

/** The visibility query; task queue names are letters, digits, ".", "-", "_" (worker config), so no quoting issue. */
export function operatorWaitsQuery(taskQueue: string): string {
  return `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running' AND ${STATUS.name} = 'waiting-operator'`;
}

export interface OperatorWaitsOptions {
  connection: Pick<NativeConnection, 'workflowService'>;
  namespace: string;
  taskQueue: string;
  meter: MetricMeter;
  intervalMs: number;
  log: (line: string) => void;
}

export interface OperatorWaitsGauge {
  /** Counts once now (the timer does it every interval); resolves with the count, or undefined on failure. */
  refresh(): Promise<number | undefined>;
  stop(): void;
}

export function startOperatorWaitsGauge(opts: OperatorWaitsOptions): OperatorWaitsGauge {
  const m = METRICS.operatorWaits;
  const gauge: MetricGauge = opts.meter.createGauge(m.name, 'int', undefined, m.help);
  const query = operatorWaitsQuery(opts.taskQueue);
  let lastError = '';
  async function refresh(): Promise<number | undefined> {
    try {
      const res = await opts.connection.workflowService.countWorkflowExecutions({ namespace: opts.namespace, query });
      const count = Number(res.count ?? 0);
      gauge.set(count, { taskQueue: opts.taskQueue });
      lastError = '';
      return count;
    } catch (err) {
      // Once per distinct failure (e.g. search attributes not registered: `reelflow setup`).
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastError) opts.log(`metrics: ${m.name} not updated: ${message}`);
      lastError = message;
      return undefined;
    }
  }
  void refresh();
  const timer = setInterval(() => void refresh(), opts.intervalMs);
  timer.unref();
  return { refresh, stop: () => clearInterval(timer) };
}
