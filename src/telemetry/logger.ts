/**
 * The JSON logger of the worker and the callback receiver (pino): one JSON object per
 * line, level as a word, ISO time. Human CLI output does not go through here.
 *
 * Never a secret, in three layers, on every written line:
 * - fields that carry credentials by name (`secret`, `apiKey`, `Authorization`, a callback
 *   URL as `callbackUrl` or `callback_url`, anything ending in token/secret/password, ...)
 *   print as "[redacted]" at any depth, whatever the case or the `_`/`-` in the name;
 * - the values of the process's secret variables (see SECRET_VARIABLE), each item of a
 *   list value too (REELFLOW_CODEC_KEYS is "id:key,…", OTLP headers "k=v,…"), are replaced
 *   in any letter case, so a secret that slips into a message or an error's text is still
 *   not printed;
 * - the token of any callback URL in the text is replaced.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { redactCallbackTokens } from '../vendor-api/callback-redaction';
import { DEFAULT_LOG_LEVEL, type LogLevel } from './levels';

export type { Logger } from 'pino';

/** A line sink with an optional level (the worker's and the receiver's `log(...)` callbacks). */
export type LogLine = (line: string, level?: 'warn' | 'error') => void;

const REDACTED = '[redacted]';

/** Field names that carry credentials, compared lower case without `_` and `-`. */
const SECRET_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'callbackurl',
  'apikey',
  'privatekey',
  'keydata',
]);
/** …and any name ending like these: accessToken, taskToken (the SDK's debug lines), webhook_secret. */
const SECRET_KEY_ENDING = /(secret|token|password|apikey)$/;

export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  return SECRET_KEYS.has(k) || SECRET_KEY_ENDING.test(k);
}

/** A copy of a parsed JSON value with every secret-named field redacted, at any depth. */
function redactFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactFields);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSecretKey(k) ? REDACTED : redactFields(v)]));
}

/**
 * Variables whose value is a secret: credentials by name, the TLS client key's PEM
 * (TEMPORAL_TLS_CLIENT_KEY_DATA), OTLP headers (they carry the collector's credential) and
 * the worker's notify URL (its path or query may be the receiver's token).
 */
const SECRET_VARIABLE = /(SECRET|TOKEN|API_KEY|PASSWORD|_KEYS|_KEY|_KEY_DATA|_HEADERS|NOTIFY_URL)$/i;
/** Shorter values are not secrets worth the name (and would redact ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** A PEM line's armour (`-----BEGIN`, `KEY-----`): no secret, and common in ordinary text. */
const PEM_ARMOUR = /^-----|-----$/;

/**
 * The parts of a value that are secret on their own: list items, "id:key", "k=v", PEM lines,
 * and each word of a space-separated list: a rotation pair ("whsec_new whsec_old",
 * docs/webhooks.md) is two secrets, and either may be printed alone.
 */
function partsOf(value: string): string[] {
  const items = value.split(/[,\n]/).map((item) => item.trim());
  return items.flatMap((item) => [
    item,
    item.slice(item.indexOf(':') + 1).trim(),
    item.slice(item.indexOf('=') + 1).trim(),
    ...item.split(/\s+/).filter((word) => !PEM_ARMOUR.test(word)),
  ]);
}

/** Values of the environment's secret variables, longest first, raw and as JSON-escaped. */
export function secretValues(env: Record<string, string | undefined>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (!SECRET_VARIABLE.test(name) || value === undefined) continue;
    for (const v of [value, ...partsOf(value)]) {
      if (v.trim().length < MIN_SECRET_LENGTH) continue;
      values.add(v);
      values.add(JSON.stringify(v).slice(1, -1));
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The whole line's defence: fields by name, secret values in any case, callback tokens. */
function scrubber(secrets: readonly string[]): (line: string) => string {
  const values = secrets.length ? new RegExp(secrets.map(escapeRegExp).join('|'), 'gi') : undefined;
  return (line) => {
    let out = line;
    try {
      const newline = out.endsWith('\n') ? '\n' : '';
      out = JSON.stringify(redactFields(JSON.parse(out))) + newline;
    } catch {
      // Not one JSON object: the value scrubbing below still applies.
    }
    if (values) out = out.replace(values, REDACTED);
    return redactCallbackTokens(out);
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
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
      ...(opts.mixin ? { mixin: opts.mixin } : {}),
      hooks: { streamWrite: scrub },
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
