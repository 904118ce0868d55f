/**
 * The SDK's Runtime, installed once per process (Runtime.install throws the second
 * time, and once a connection exists): the JSON logger for the SDK's logs (workflow and
 * activity loggers, the worker's own, the Rust core's forwarded) and, when asked, the
 * Prometheus endpoint. Both go in the one install.
 */
import { Runtime, type RuntimeOptions } from '@temporalio/worker';
import { METRICS, STAGE_DURATION_BUCKETS } from '../metrics/names';
import type { LogLine, Logger } from '../telemetry/logger';
import { coreLogFilter, sdkLogger } from '../telemetry/sdk-logger';

export interface RuntimeSettings {
  logger: Logger;
  /** Prometheus scrape address (REELFLOW_METRICS_BIND). */
  metricsBind?: string;
}

/** reelflow's stage durations run from seconds to a day: the SDK's default buckets stop far short. */
const histogramBucketOverrides = { [METRICS.stageDuration.name]: STAGE_DURATION_BUCKETS };

export function runtimeOptions(s: RuntimeSettings): RuntimeOptions {
  return {
    logger: sdkLogger(s.logger),
    telemetryOptions: {
      logging: { filter: coreLogFilter(s.logger.level), forward: {} },
      ...(s.metricsBind ? { metrics: { prometheus: { bindAddress: s.metricsBind, histogramBucketOverrides } } } : {}),
    },
  };
}

/** Installs the Runtime; when this process already has one (a host app, a test), says what it keeps. */
export function installRuntime(s: RuntimeSettings, log: LogLine): boolean {
  try {
    Runtime.install(runtimeOptions(s));
  } catch {
    log(
      `the SDK runtime was already installed in this process: SDK logs stay with its logger${
        s.metricsBind ? ', metrics not enabled' : ''
      }`,
      'warn',
    );
    return false;
  }
  if (s.metricsBind) log(`metrics: Prometheus on http://${s.metricsBind}/metrics`);
  return true;
}
