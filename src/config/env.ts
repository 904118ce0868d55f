/**
 * The environment toolkit every process's configuration is built with (the worker's
 * src/workers/config.ts, the receiver's src/callbacks/config.ts, the codec's keys, the
 * webhook secrets): the Env type, the error that names every bad variable, and the zod
 * helpers for optional and numeric variables. Errors name the variable; no value is ever
 * printed (the name and the rule are enough to fix it, and some are secrets).
 *
 *   REELFLOW_LOG_LEVEL         trace|debug|info|warn|error; default info (JSON logs, src/telemetry)
 *   OTEL_EXPORTER_OTLP_ENDPOINT  OTLP/HTTP collector, tracing on when set (src/telemetry/tracing.ts)
 */
import { z } from 'zod';
import { LOG_LEVELS } from '../telemetry/levels';

export type Env = Record<string, string | undefined>;

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

const SECRET_VARIABLES = new Set(['REELFLOW_CALLBACK_SECRET', 'REELFLOW_ARCHIVE_TOKEN']);

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
