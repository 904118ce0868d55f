/**
 * The optional payload codec (README "Encrypted payloads"): one DataConverter for the
 * worker and every client, from REELFLOW_CODEC_KEYS / REELFLOW_CODEC_KEY_ID. The codec
 * itself runs outside the workflow sandbox; only its failure converter (./failure-converter)
 * is bundled, into a bundle of its own that codec-on workers load (src/workers/bundle.ts).
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

/** Path of the failure converter that moves failure messages and stacks into an (encrypted) payload. */
export const FAILURE_CONVERTER_PATH = require.resolve('./failure-converter');

/**
 * The codec's DataConverter: payloads encrypted, failure messages and stacks too. The
 * workflow side needs the same failure converter in its bundle (`failureConverterPath`).
 */
export function codecDataConverterOf(codec: EncryptionCodec): DataConverter {
  return { payloadCodecs: [codec], failureConverterPath: FAILURE_CONVERTER_PATH };
}

/** The codec's DataConverter when the environment configures it, else undefined (the SDK's default). */
export function codecDataConverter(env: Env = process.env): DataConverter | undefined {
  const codec = codecFromEnv(env);
  return codec ? codecDataConverterOf(codec) : undefined;
}
