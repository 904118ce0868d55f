/**
 * The optional payload codec (README "Encrypted payloads"): one DataConverter for the
 * worker and every client, from REELFLOW_CODEC_KEYS / REELFLOW_CODEC_KEY_ID. Only
 * `payloadCodecs`: no converter path, so nothing of it enters the workflow bundle.
 */
import type { DataConverter } from '@temporalio/common';
import type { Env } from '../callbacks/config';
import { EncryptionCodec } from './encryption-codec';
import { loadCodecKeys } from './keys';

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

/** `{ payloadCodecs: [codec] }` when the environment configures the codec, else undefined (the SDK's default). */
export function codecDataConverter(env: Env = process.env): DataConverter | undefined {
  const codec = codecFromEnv(env);
  return codec ? { payloadCodecs: [codec] } : undefined;
}
