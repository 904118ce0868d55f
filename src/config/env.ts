/**
 * The callback receiver's own configuration, from the environment. The standalone
 * receiver (main.ts) reads only these variables; the worker, which can run the receiver
 * in its own process, reads the same ones with the same rules (src/workers/config.ts
 * builds on this module).
 *
 *   REELFLOW_CALLBACK_SECRET   HMAC key, ≥ 16 characters; required
 *   REELFLOW_CALLBACK_PORT     default 8089 (0: any free port)
 *   REELFLOW_CALLBACK_HOST     interface; default 0.0.0.0
 *   REELFLOW_LOG_LEVEL         trace|debug|info|warn|error; default info (JSON logs, src/telemetry)
 *   OTEL_EXPORTER_OTLP_ENDPOINT  OTLP/HTTP collector, tracing on when set (src/telemetry/tracing.ts)
 *
 * Errors name the variable; no value is ever printed (the name and the rule are enough
 * to fix it, and one of them is a secret).
 */
import { z } from 'zod';
import { DEFAULT_LOG_LEVEL, LOG_LEVELS, type LogLevel } from '../telemetry/levels';

export type Env = Record<string, string | undefined>;

export const DEFAULT_CALLBACK_PORT = 8089;
export const DEFAULT_CALLBACK_HOST = '0.0.0.0';
export const MIN_CALLBACK_SECRET_LENGTH = 16;
export const SECRET_REQUIRED = 'is required when REELFLOW_CALLBACK_BASE_URL or REELFLOW_CALLBACK_PORT is set';

export interface ConfigProblem {
  variable: string;
  message: string;
}

/**
 * Missing or malformed variables, every one named. The receiver's variables are part of
 * the worker's configuration, so the wording is the worker's whichever process reads them.
 */
export class ConfigError extends Error {
  override readonly name: string = 'ConfigError';
  /** Every offending variable, in order. */
  readonly variables: string[];
  constructor(problems: ConfigProblem[]) {
    super(`worker config: ${problems.map((p) => `${p.variable} ${p.message}`).join('; ')}`);
    this.variables = problems.map((p) => p.variable);
  }
}

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
/** An optional variable: blank counts as unset. */
export const optional = <T extends z.ZodType>(s: T) => z.preprocess(blankToUndefined, s.optional());

export const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** The receiver's variables and their rules (all optional here: who requires what decides). */
export const CALLBACK_VARIABLES = {
  REELFLOW_CALLBACK_SECRET: optional(
    z.string().min(MIN_CALLBACK_SECRET_LENGTH, `must be at least ${MIN_CALLBACK_SECRET_LENGTH} characters`),
  ),
  REELFLOW_CALLBACK_PORT: optional(wholeNumber(0, 65535)),
  REELFLOW_CALLBACK_HOST: optional(z.string().trim().min(1)),
};

/** The log level, shared by the worker and the standalone receiver. */
export const LOG_VARIABLES = {
  REELFLOW_LOG_LEVEL: optional(
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` })),
  ),
};

/** Checked here so a bad collector URL is reported with the rest; src/telemetry/tracing.ts reads it. */
export const TRACING_VARIABLES = {
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(
    z
      .string()
      .trim()
      .regex(/^https?:\/\/[^\s/?#]+(\/\S*)?$/i, 'must be an http(s) URL, e.g. http://127.0.0.1:4318'),
  ),
};

const SECRET_VARIABLES = new Set(['REELFLOW_CALLBACK_SECRET']);

/** One problem per zod issue, naming its variable. Zod never quotes the input; for a secret, say even less. */
export function problemsOf(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  return issues.map((issue) => {
    const variable = String(issue.path[0] ?? 'REELFLOW_*');
    const message =
      SECRET_VARIABLES.has(variable) && issue.code !== 'custom' && issue.code !== 'too_small'
        ? 'is invalid'
        : issue.message;
    return { variable, message };
  });
}

/** Only the variables `shape` names, so nothing else of the environment reaches the parse. */
export function pickVariables(shape: object, env: Env): Record<string, string | undefined> {
  return Object.fromEntries(Object.keys(shape).map((k) => [k, env[k]]));
}

export interface ReceiverConfig {
  host: string;
  port: number;
  logLevel: LogLevel;
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
  };
  Object.defineProperty(config, 'secret', { value: e.REELFLOW_CALLBACK_SECRET, enumerable: false });
  return config as ReceiverConfig;
}
