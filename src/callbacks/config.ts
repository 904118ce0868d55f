/**
 * The callback receiver's own configuration, from the environment. The standalone
 * receiver (main.ts) reads only these variables; the worker, which can run the receiver
 * in its own process, reads the same ones with the same rules (src/workers/config.ts
 * builds on this module).
 *
 *   REELFLOW_CALLBACK_SECRET   HMAC key, ≥ 16 characters; required
 *   REELFLOW_CALLBACK_PORT     default 8089 (0: any free port)
 *   REELFLOW_CALLBACK_HOST     interface; default 0.0.0.0
 *   REELFLOW_CALLBACK_MAX_CONNECTIONS  open connections at most; default 8192
 *   REELFLOW_CALLBACK_MAX_BODY_BYTES   a callback body's limit; default 65536 (64 KiB)
 *   REELFLOW_CALLBACK_MAX_READING      bodies being read at once; default 256
 *   REELFLOW_LOG_LEVEL, OTEL_EXPORTER_OTLP_ENDPOINT  as the worker (src/config/env.ts)
 *
 * Errors name the variable; no value is ever printed (the name and the rule are enough
 * to fix it, and one of them is a secret).
 */
import { z } from 'zod';
import {
  ConfigError,
  LOG_VARIABLES,
  TRACING_VARIABLES,
  optional,
  pickVariables,
  problemsOf,
  wholeNumber,
  type Env,
} from '../config/env';
import { DEFAULT_LOG_LEVEL, type LogLevel } from '../telemetry/levels';

export const DEFAULT_CALLBACK_PORT = 8089;
export const DEFAULT_CALLBACK_HOST = '0.0.0.0';
export const MIN_CALLBACK_SECRET_LENGTH = 16;
export const SECRET_REQUIRED = 'is required when REELFLOW_CALLBACK_BASE_URL or REELFLOW_CALLBACK_PORT is set';

/** The receiver's variables and their rules (all optional here: who requires what decides). */
export const CALLBACK_VARIABLES = {
  REELFLOW_CALLBACK_SECRET: optional(
    z.string().min(MIN_CALLBACK_SECRET_LENGTH, `must be at least ${MIN_CALLBACK_SECRET_LENGTH} characters`),
  ),
  REELFLOW_CALLBACK_PORT: optional(wholeNumber(0, 65535)),
  REELFLOW_CALLBACK_HOST: optional(z.string().trim().min(1)),
  REELFLOW_CALLBACK_MAX_CONNECTIONS: optional(wholeNumber(1, 1_000_000)),
  REELFLOW_CALLBACK_MAX_BODY_BYTES: optional(wholeNumber(1024, 64 * 1024 * 1024)),
  REELFLOW_CALLBACK_MAX_READING: optional(wholeNumber(1, 100_000)),
};

/** The receiver's resource limits a deployment may set; one left out keeps the receiver's default. */
export interface ReceiverLimits {
  maxConnections?: number;
  bodyLimitBytes?: number;
  maxReading?: number;
}

/** The limits the variables set (docs/operations.md "Callbacks", the receiver's limits). */
export function receiverLimitsOf(e: {
  REELFLOW_CALLBACK_MAX_CONNECTIONS?: number | undefined;
  REELFLOW_CALLBACK_MAX_BODY_BYTES?: number | undefined;
  REELFLOW_CALLBACK_MAX_READING?: number | undefined;
}): ReceiverLimits {
  const limits: ReceiverLimits = {};
  if (e.REELFLOW_CALLBACK_MAX_CONNECTIONS !== undefined) limits.maxConnections = e.REELFLOW_CALLBACK_MAX_CONNECTIONS;
  if (e.REELFLOW_CALLBACK_MAX_BODY_BYTES !== undefined) limits.bodyLimitBytes = e.REELFLOW_CALLBACK_MAX_BODY_BYTES;
  if (e.REELFLOW_CALLBACK_MAX_READING !== undefined) limits.maxReading = e.REELFLOW_CALLBACK_MAX_READING;
  return limits;
}

export interface ReceiverConfig {
  host: string;
  port: number;
  logLevel: LogLevel;
  limits: ReceiverLimits;
  /** Non-enumerable: JSON.stringify, util.inspect and spreads never show it. */
  readonly secret: string;
}

const ReceiverEnvSchema = z.object({ ...CALLBACK_VARIABLES, ...LOG_VARIABLES, ...TRACING_VARIABLES });

/** Reads and validates the receiver's environment; throws a ConfigError naming every bad variable. */
export function loadReceiverConfig(env: Env = process.env): ReceiverConfig {
  const r = ReceiverEnvSchema.safeParse(pickVariables(ReceiverEnvSchema.shape, env));
  if (!r.success) throw new ConfigError(problemsOf(r.error.issues));
  const e = r.data;
  // The receiver always listens (on the default port when none is set), so it always needs the secret.
  if (e.REELFLOW_CALLBACK_SECRET === undefined) {
    throw new ConfigError([{ variable: 'REELFLOW_CALLBACK_SECRET', message: SECRET_REQUIRED }]);
  }
  const config = {
    host: e.REELFLOW_CALLBACK_HOST ?? DEFAULT_CALLBACK_HOST,
    port: e.REELFLOW_CALLBACK_PORT ?? DEFAULT_CALLBACK_PORT,
    logLevel: e.REELFLOW_LOG_LEVEL ?? DEFAULT_LOG_LEVEL,
    limits: receiverLimitsOf(e),
  };
  Object.defineProperty(config, 'secret', { value: e.REELFLOW_CALLBACK_SECRET, enumerable: false });
  return config as ReceiverConfig;
}
