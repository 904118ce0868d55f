/**
 * The Temporal SDK's Logger interface over pino, for Runtime.install({ logger }): the SDK's
 * own messages, workflow `log.*` calls (through the SDK's logger sink), activity context
 * logs and, with forwarding on, the Rust core's, all as JSON lines of the same logger.
 * Their metadata (sdkComponent, taskQueue, workflowId, activityType, ...) become fields.
 */
import type { Logger as SdkLogger, LogLevel as SdkLogLevel, LogMetadata } from '@temporalio/common';
import type { Logger } from 'pino';

const LEVELS: Record<SdkLogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

export function sdkLogger(logger: Logger): SdkLogger {
  const log = (level: SdkLogLevel, message: string, meta?: LogMetadata): void => {
    const method = LEVELS[level] ?? 'info';
    // Symbol keys (the SDK's timestamp) are not JSON; string keys are the fields.
    if (meta) logger[method]({ ...meta }, message);
    else logger[method](message);
  };
  return {
    log,
    trace: (m, meta) => log('TRACE', m, meta),
    debug: (m, meta) => log('DEBUG', m, meta),
    info: (m, meta) => log('INFO', m, meta),
    warn: (m, meta) => log('WARN', m, meta),
    error: (m, meta) => log('ERROR', m, meta),
  };
}

/** The core's filter for a pino level: its own crate at that level, other crates at WARN or above. */
export function coreLogFilter(level: string): { core: SdkLogLevel; other: SdkLogLevel } {
  const core = (level.toUpperCase() as SdkLogLevel) in LEVELS ? (level.toUpperCase() as SdkLogLevel) : 'INFO';
  return { core, other: core === 'ERROR' ? 'ERROR' : 'WARN' };
}
