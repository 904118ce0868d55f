/**
 * The optional payload codec (docs/encryption.md, "Encrypted payloads"): one DataConverter for the
 * worker and every client, from REELFLOW_CODEC_KEYS / REELFLOW_CODEC_KEY_ID. The codec
 * itself runs outside the workflow sandbox; only its failure and payload converters
 * (./failure-converter, ./payload-converter) are bundled, into a bundle of its own that codec-on workers load (src/workers/bundle.ts).
 */
import type { DataConverter } from '@temporalio/common';
import type { Env } from '../config/env';
import { EncryptionCodec } from './encryption-codec';
import { CodecConfigError, KEYS_VARIABLE, loadCodecKeys } from './keys';

export { EncryptionCodec, ENCODING, METADATA_KEY_ID } from './encryption-codec';
export {
  CODEC_VARIABLES,
  CodecConfigError,
  KEY_ID_VARIABLE,
  KEYS_VARIABLE,
  codecEnv,
  loadCodecKeys,
  type CodecKeys,
} from './keys';

/** The codec the environment configures, or undefined when it is off. Throws CodecConfigError. */
export function codecFromEnv(env: Env = process.env): EncryptionCodec | undefined {
  const keys = loadCodecKeys(env);
  return keys ? new EncryptionCodec(keys) : undefined;
}

/**
 * The worker's strict mode: refuse plaintext starts, signals and Updates (docs/encryption.md,
 * "Encrypted payloads").
 */
export const STRICT_VARIABLE = 'REELFLOW_CODEC_STRICT';

/**
 * REELFLOW_CODEC_STRICT: "1" on, "0" off, unset or "" the default: on once a key is configured
 * (a namespace whose payloads are encrypted takes no plaintext unless told to). Anything else
 * is an error. Throws CodecConfigError.
 */
export function codecStrictFromEnv(env: Env = process.env, keysConfigured = false): boolean {
  const raw = env[STRICT_VARIABLE]?.trim() ?? '';
  if (raw === '') return keysConfigured;
  if (raw === '0') return false;
  if (raw === '1') return true;
  throw new CodecConfigError(STRICT_VARIABLE, `must be 1 (on) or 0 (off), got "${raw.slice(0, 20)}"`);
}

/**
 * A worker's codec: codecFromEnv, strict unless REELFLOW_CODEC_STRICT=0. Strict without the
 * codec is refused: with no key, every payload is plaintext and nothing could start.
 */
export function workerCodecFromEnv(env: Env = process.env): EncryptionCodec | undefined {
  const keys = loadCodecKeys(env);
  const strict = codecStrictFromEnv(env, keys !== undefined);
  if (strict && !keys)
    throw new CodecConfigError(
      STRICT_VARIABLE,
      `=1 needs the payload codec: set ${KEYS_VARIABLE} too, or unset ${STRICT_VARIABLE}`,
    );
  return keys ? new EncryptionCodec(keys, strict) : undefined;
}

/**
 * Path of the payload converter: the SDK's default, marking values a strict codec tagged as
 * having arrived in plaintext (./payload-converter).
 */
export const PAYLOAD_CONVERTER_PATH = require.resolve('./payload-converter');

/** Path of the failure converter that moves failure messages and stacks into an (encrypted) payload. */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * The codec's DataConverter: payloads encrypted, failure messages and stacks too. The
 * workflow side needs the same converters in its bundle (`failureConverterPath`,
 * `payloadConverterPath`).
 */
export function codecDataConverterOf(codec: EncryptionCodec): DataConverter {
  return {
    payloadCodecs: [codec],
    failureConverterPath: FAILURE_CONVERTER_PATH,
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
  };
}

/** The codec's DataConverter when the environment configures it, else undefined (the SDK's default). */
export function codecDataConverter(env: Env = process.env): DataConverter | undefined {
  const codec = codecFromEnv(env);
  return codec ? codecDataConverterOf(codec) : undefined;
}
