/**
 * AES-256-GCM payload codec. A payload (metadata and data) is serialized as a protobuf
 * and encrypted whole, so its encoding and content are both hidden; what goes out is
 *
 *   metadata: encoding = binary/encrypted, encryption-key-id = <key id>
 *   data:     12-byte random IV | ciphertext | 16-byte GCM tag
 *
 * The key id is authenticated too (GCM additional data): relabelling a payload with
 * another key id makes it fail to decrypt rather than decrypt as something else.
 * Payloads without that encoding pass through decode untouched (history recorded
 * before the codec was turned on stays readable). A strict codec (a worker's, with
 * REELFLOW_CODEC_STRICT=1) also tags them (plaintext-mark.ts) so that the workflow can refuse
 * plaintext starts, signals and Updates; the tag never leaves the process: encode drops it.
 *
 * Runs in the worker's main thread and in clients, never in the workflow sandbox.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, ValueError, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { KEYS_VARIABLE, type CodecKeys } from './keys';
import { PLAINTEXT_METADATA_KEY } from './plaintext-mark';

export const ENCODING = 'binary/encrypted';
export const METADATA_KEY_ID = 'encryption-key-id';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const PayloadProto = temporal.api.common.v1.Payload;
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const text = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('utf8') : undefined);

/** The payload with the strict mode's plaintext tag. */
function tagged(payload: Payload): Payload {
  return { ...payload, metadata: { ...payload.metadata, [PLAINTEXT_METADATA_KEY]: utf8('1') } };
}

/** The payload without that tag: only this process's decode may set it, never a sender. */
function untagged(payload: Payload): Payload {
  if (payload.metadata?.[PLAINTEXT_METADATA_KEY] === undefined) return payload;
  const { [PLAINTEXT_METADATA_KEY]: _tag, ...metadata } = payload.metadata;
  return { ...payload, metadata };
}

export class EncryptionCodec implements PayloadCodec {
  /** @param strict tag the payloads that arrive without encryption (a strict worker's codec) */
  constructor(
    private readonly keys: CodecKeys,
    readonly strict = false,
  ) {}

  /** The key id new payloads are encrypted with. */
  get keyId(): string {
    return this.keys.currentKeyId;
  }

  // Synchronous node:crypto (faster than WebCrypto for payload-sized data); a throw becomes a rejection.
  encode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve().then(() => payloads.map((p) => this.encryptOne(p)));
  }

  decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.resolve().then(() => payloads.map((p) => this.decryptOne(p)));
  }

  encryptOne(payload: Payload): Payload {
    const keyId = this.keys.currentKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.keys.key(keyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(utf8(keyId));
    const plain = PayloadProto.encode(untagged(payload)).finish();
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { metadata: { [METADATA_ENCODING_KEY]: utf8(ENCODING), [METADATA_KEY_ID]: utf8(keyId) }, data };
  }

  decryptOne(payload: Payload): Payload {
    if (text(payload.metadata?.[METADATA_ENCODING_KEY]) !== ENCODING) return this.strict ? tagged(payload) : payload;
    const keyId = text(payload.metadata?.[METADATA_KEY_ID]);
    if (!keyId)
      throw new ValueError(`encrypted payload without an ${METADATA_KEY_ID}: cannot tell which key decrypts it`);
    const key = this.keys.key(keyId);
    if (!key) {
      throw new ValueError(
        `payload encrypted with key id "${keyId}", which ${KEYS_VARIABLE} does not list (listed: ${this.keys.keyIds.join(', ')})`,
      );
    }
    const data = Buffer.from(payload.data ?? []);
    if (data.length < IV_BYTES + TAG_BYTES) throw new ValueError(`encrypted payload (key id "${keyId}") is truncated`);
    try {
      const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(utf8(keyId));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return untagged(PayloadProto.decode(plain));
    } catch {
      throw new ValueError(
        `cannot decrypt a payload with key id "${keyId}": the key listed under that id is not the one that encrypted it, or the payload was altered`,
      );
    }
  }
}
