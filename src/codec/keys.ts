/**
 * The payload codec's keys, from the environment:
 *
 *   REELFLOW_CODEC_KEYS     "<key id>:<base64 of 32 bytes>,…": every key listed decrypts
 *   REELFLOW_CODEC_KEY_ID   the key id that encrypts; required when several keys are listed
 *
 * Neither set: no codec (payloads stay plain JSON, as before). Rotation: add the new key,
 * point REELFLOW_CODEC_KEY_ID at it on every process, keep the old one listed for as long
 * as histories encrypted with it are read.
 *
 * Errors name the variable and the key id, never a key.
 */
import type { Env } from '../config/env';

export const KEYS_VARIABLE = 'REELFLOW_CODEC_KEYS';
export const KEY_ID_VARIABLE = 'REELFLOW_CODEC_KEY_ID';
export const CODEC_VARIABLES = [KEYS_VARIABLE, KEY_ID_VARIABLE] as const;

/** AES-256: 32-byte keys. */
export const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface CodecKeys {
  /** The key id new payloads are encrypted with. */
  readonly currentKeyId: string;
  /** Every key id that decrypts, in the order listed. */
  readonly keyIds: readonly string[];
  /** The key of an id, or undefined. */
  key(id: string): Buffer | undefined;
}

/** A variable is missing or malformed; `variable` names it. The message never carries a key. */
export class CodecConfigError extends Error {
  override readonly name = 'CodecConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`codec config: ${variable} ${message}`);
  }
}

function parseEntry(entry: string, index: number): [string, Buffer] {
  const colon = entry.indexOf(':');
  const id = colon < 0 ? '' : entry.slice(0, colon).trim();
  const encoded = colon < 0 ? '' : entry.slice(colon + 1).trim();
  const where = `entry ${index + 1}`;
  if (!KEY_ID.test(id)) {
    throw new CodecConfigError(
      KEYS_VARIABLE,
      `${where}: must be "<key id>:<base64 key>" with a key id of letters, digits, ".", "-", "_" (≤ 64)`,
    );
  }
  const key = BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
  if (key?.length !== KEY_BYTES) {
    throw new CodecConfigError(
      KEYS_VARIABLE,
      `key id "${id}": the key must be the base64 of ${KEY_BYTES} random bytes (openssl rand -base64 32)`,
    );
  }
  return [id, key];
}

/** Reads the codec's keys; undefined when the codec is off (neither variable set). Throws CodecConfigError. */
export function loadCodecKeys(env: Env = process.env): CodecKeys | undefined {
  const listed = env[KEYS_VARIABLE]?.trim() ?? '';
  const chosen = env[KEY_ID_VARIABLE]?.trim() ?? '';
  if (!listed) {
    if (chosen) throw new CodecConfigError(KEYS_VARIABLE, `is required when ${KEY_ID_VARIABLE} is set`);
    return undefined;
  }
  const keys = new Map<string, Buffer>();
  listed
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .forEach((entry, i) => {
      const [id, key] = parseEntry(entry, i);
      if (keys.has(id)) throw new CodecConfigError(KEYS_VARIABLE, `lists key id "${id}" twice`);
      keys.set(id, key);
    });
  const ids = [...keys.keys()];
  if (!chosen && ids.length > 1) {
    throw new CodecConfigError(
      KEY_ID_VARIABLE,
      `is required when ${KEYS_VARIABLE} lists several keys (${ids.join(', ')})`,
    );
  }
  const currentKeyId = chosen || ids[0];
  if (!keys.has(currentKeyId)) {
    throw new CodecConfigError(
      KEY_ID_VARIABLE,
      `names "${currentKeyId}", which ${KEYS_VARIABLE} does not list (${ids.join(', ')})`,
    );
  }
  return { currentKeyId, keyIds: ids, key: (id) => keys.get(id) };
}

/** The codec's variables of `env`, to hand to a child process (bench, chaos). */
export function codecEnv(env: Env = process.env): Record<string, string> {
  return Object.fromEntries(CODEC_VARIABLES.filter((v) => env[v] !== undefined).map((v) => [v, env[v]!]));
}
