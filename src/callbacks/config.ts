/**
 * The callback receiver's own configuration, from the environment. The standalone
 * receiver (main.ts) reads only these variables; the worker, which can run the receiver
 * in its own process, reads the same ones with the same rules (src/workers/config.ts
 * builds on this module).
 *
 *   REELFLOW_CALLBACK_SECRET   HMAC key, ≥ 16 characters; required
 *   REELFLOW_CALLBACK_PORT     default 8089 (0: any free port)
 *   REELFLOW_CALLBACK_HOST     interface; default 0.0.0.0
 *
 * Errors name the variable; no value is ever printed (the name and the rule are enough
 * to fix it, and one of them is a secret).
 */
import { z } from 'zod';

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
  /** Non-enumerable: JSON.stringify, util.inspect and spreads never show it. */
  readonly secret: string;
}

const ReceiverEnvSchema = z.object(CALLBACK_VARIABLES);

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
  };
  Object.defineProperty(config, 'secret', { value: e.REELFLOW_CALLBACK_SECRET, enumerable: false });
  return config as ReceiverConfig;
}
