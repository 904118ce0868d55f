/**
 * CLI: node dist/emulator/main.js --port 8080 [--host H] [--profile fast|realistic]
 *   [--timings timings.json] [--seed N] [--faults faults.json] [--api-key K]... [--access-token T]...
 *   [--dialect seed|upstream] [--path-word W]
 * --timings: a JSON object of Timings fields (ms, or [min, max]) laid over the profile's.
 * Env EMULATOR_API_KEYS / EMULATOR_ACCESS_TOKENS (comma-separated) add credentials;
 * EMULATOR_CONTROL_TOKEN guards /__emulator/ (needed when binding beyond loopback).
 * Prints where it listens (never the credentials, unless they are the public defaults).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CONTROL_TOKEN_ENV, isLoopbackAddress } from './control-access';
import { DIALECTS, type Dialect } from './dialect';
import {
  DEFAULT_ACCESS_TOKENS,
  DEFAULT_API_KEYS,
  parseFaultConfig,
  startEmulator,
  type EmulatorOptions,
} from './index';
import { PROFILES, type Timings } from './timings';

const USAGE = `usage: emulator [--port 8080] [--host 127.0.0.1] [--public-url URL] [--profile fast|realistic] [--timings t.json]
                [--seed N] [--faults faults.json] [--api-key K]... [--access-token T]...
                [--dialect seed|upstream] [--path-word svc]
env: EMULATOR_API_KEYS, EMULATOR_ACCESS_TOKENS (comma-separated);
     ${CONTROL_TOKEN_ENV} (Bearer token of /__emulator/; without it, /__emulator/ answers only on a loopback bind)`;

/** Reads a --timings file: known Timings fields only, each ms ≥ 0 or a [min, max] range. */
function readTimings(file: string): Partial<Timings> {
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new Error(`--timings ${file}: must be a JSON object`);
  const known = Object.keys(PROFILES.fast);
  const ms = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  for (const [key, value] of Object.entries(raw)) {
    if (!known.includes(key)) throw new Error(`--timings ${file}: unknown field "${key}" (known: ${known.join(', ')})`);
    const range =
      Array.isArray(value) && value.length === 2 && value.every(ms) && (value as number[])[0] <= (value as number[])[1];
    if (!ms(value) && !range) throw new Error(`--timings ${file}: ${key} must be ms ≥ 0 or [min, max]`);
  }
  return raw;
}

const fromEnv = (name: string): string[] =>
  (process.env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const OPTIONS = {
  port: { type: 'string', default: '8080' },
  host: { type: 'string', default: '127.0.0.1' },
  'public-url': { type: 'string' },
  profile: { type: 'string', default: 'fast' },
  timings: { type: 'string' },
  seed: { type: 'string' },
  faults: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  'access-token': { type: 'string', multiple: true },
  dialect: { type: 'string', default: 'seed' },
  'path-word': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];

/** The emulator's options from the command line and the environment; throws naming the bad flag. */
function emulatorOptions(values: Values) {
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0..65535, got ${values.port}`);
  const profileName = values.profile;
  if (profileName !== 'fast' && profileName !== 'realistic') throw new Error('--profile must be fast or realistic');
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed)) throw new Error('--seed must be an integer');
  const timings = values.timings ? readTimings(values.timings) : undefined;
  const faults = values.faults ? parseFaultConfig(JSON.parse(readFileSync(values.faults, 'utf8'))) : undefined;
  const apiKeys = [...(values['api-key'] ?? []), ...fromEnv('EMULATOR_API_KEYS')];
  const accessTokens = [...(values['access-token'] ?? []), ...fromEnv('EMULATOR_ACCESS_TOKENS')];

  const profile: EmulatorOptions['profile'] = timings ? { ...PROFILES[profileName], ...timings } : profileName;
  const publicUrl = values['public-url'];
  if (publicUrl !== undefined && !/^https?:\/\/[^\s/?#]+\/?$/.test(publicUrl)) {
    throw new Error(`--public-url must be http(s)://host[:port], got ${publicUrl}`);
  }
  if (!(DIALECTS as readonly string[]).includes(values.dialect))
    throw new Error(`--dialect must be ${DIALECTS.join(' or ')}`);
  const dialect = values.dialect as Dialect;
  const pathWord = values['path-word'];
  const controlToken = process.env[CONTROL_TOKEN_ENV] || undefined;
  return {
    port,
    host: values.host,
    publicUrl,
    profile,
    seed,
    faults,
    apiKeys,
    accessTokens,
    dialect,
    ...(pathWord !== undefined ? { pathWord } : {}),
    ...(controlToken !== undefined ? { controlToken } : {}),
  };
}

/** Where it listens and how it is set up; never the credentials, unless they are the public defaults. */
function printBanner(url: string, values: Values, o: ReturnType<typeof emulatorOptions>, out: (line: string) => void) {
  out(`vendor emulator listening on ${url}  (base_url = identity_url = ${url})`);
  out(
    `  profile ${values.profile}${values.timings ? ` with timings from ${values.timings}` : ''}, seed ${o.seed ?? 1}${o.faults ? `, faults from ${values.faults}` : ''}`,
  );
  out(
    o.apiKeys.length
      ? `  API keys: ${o.apiKeys.length} configured`
      : `  API key: ${DEFAULT_API_KEYS.join(', ')} (default)`,
  );
  out(
    o.accessTokens.length
      ? `  access tokens: ${new Set(o.accessTokens).size} configured (one user each)`
      : `  access tokens: ${DEFAULT_ACCESS_TOKENS.join(', ')} (defaults, one user each)`,
  );
  out(`  dialect ${o.dialect}, path word ${o.pathWord ?? 'svc'}`);
  out(`  inspection: ${url}/__emulator/state  ${url}/__emulator/requests`);
  if (o.controlToken) out(`  control API: needs Authorization: Bearer <${CONTROL_TOKEN_ENV}>`);
  else if (!isLoopbackAddress(values.host)) out(`  control API: disabled (not loopback and no ${CONTROL_TOKEN_ENV})`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: OPTIONS, strict: true });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const options = emulatorOptions(values);
  const emu = await startEmulator(options);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  printBanner(emu.url, values, options, out);

  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    out(`emulator: ${signal}, shutting down`);
    emu.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`emulator: ${(err as Error).message}\n${USAGE}\n`);
  process.exit(2);
});
