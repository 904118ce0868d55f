/**
 * The JSON logger of the worker and the callback receiver (pino): one JSON object per
 * line, level as a word, ISO time. Human CLI output does not go through here.
 *
 * Never a secret, in two layers:
 * - redact paths: fields that carry credentials by name (`secret`, `apiKey`,
 *   `authorization`, a callback URL, ...) print as "[redacted]" wherever they sit;
 * - every written line has the values of the process's secret variables (a name ending in
 *   SECRET, TOKEN, API_KEY, PASSWORD or _KEYS) replaced, each item of a list value too
 *   (REELFLOW_CODEC_KEYS is "id:key,…"), so a secret that slips into a message or an
 *   error's text is still not printed.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { DEFAULT_LOG_LEVEL, type LogLevel } from './levels';

export type { Logger } from 'pino';

/** A line sink with an optional level (the worker's and the receiver's `log(...)` callbacks). */
export type LogLine = (line: string, level?: 'warn' | 'error') => void;

/** Field names that carry credentials, at the top level and one object down. */
const SECRET_KEYS = [
  'secret',
  'callbackSecret',
  'apiKey',
  'accessToken',
  'token',
  'password',
  'authorization',
  'Authorization',
  'callbackUrl',
  // The SDK's debug lines: a token that completes the activity, for whoever may call Temporal.
  'taskToken',
];
export const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  'headers.authorization',
  '*.headers.authorization',
  'headers.cookie',
  '*.headers.cookie',
];

const SECRET_VARIABLE = /(SECRET|TOKEN|API_KEY|PASSWORD|_KEYS)$/i;
/** Shorter values are not secrets worth the name (and would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** Values of the environment's secret variables, longest first, raw and as JSON-escaped. */
export function secretValues(env: Record<string, string | undefined>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!SECRET_VARIABLE.test(name) || value === undefined) continue;
    const items = value.split(',').flatMap((item) => [item.trim(), item.slice(item.indexOf(':') + 1).trim()]);
    for (const v of [value, ...items]) {
      if (v.trim().length < MIN_SECRET_LENGTH) continue;
      values.add(v);
      values.add(JSON.stringify(v).slice(1, -1));
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}

function scrubber(secrets: readonly string[]): ((line: string) => string) | undefined {
  if (secrets.length === 0) return undefined;
  return (line) => {
    let out = line;
    for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
    return out;
  };
}

export interface LoggerOptions {
  /** "reelflow-worker", "reelflow-callbacks": the `name` field of every line. */
  name: string;
  level?: LogLevel;
  /** Whose secret variables are scrubbed from every line. Default process.env. */
  env?: Record<string, string | undefined>;
  /** Default stdout, written synchronously (nothing lost when the process exits right after). */
  destination?: DestinationStream;
  /** Fields of every line (e.g. trace ids of the active span). */
  mixin?: () => Record<string, unknown>;
}

export function createLogger(opts: LoggerOptions): Logger {
  const scrub = scrubber(secretValues(opts.env ?? process.env));
  return pino(
    {
      name: opts.name,
      level: opts.level ?? DEFAULT_LOG_LEVEL,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
      ...(opts.mixin ? { mixin: opts.mixin } : {}),
      ...(scrub ? { hooks: { streamWrite: scrub } } : {}),
    },
    opts.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/** A destination that hands each line (without its newline) to `write`: tests, the demo's log file. */
export function lineDestination(write: (line: string) => void): DestinationStream {
  return { write: (s: string) => write(s.endsWith('\n') ? s.slice(0, -1) : s) };
}

/** The `log(line, level?)` callback the worker's modules take, writing through `logger`. */
export function lineLogger(logger: Logger): LogLine {
  return (line, level) => {
    if (level === 'error') logger.error(line);
    else if (level === 'warn') logger.warn(line);
    else logger.info(line);
  };
}
