/**
 * The payload converter of the codec (docs/encryption.md, "Encrypted payloads"): the SDK's default,
 * plus one thing for the strict mode. A payload the strict codec tagged as having arrived in
 * plaintext decodes to the same value, and, when that value is an object, with a non-enumerable
 * mark (Symbol.for('reelflow.plaintext')) the workflow checks. Values are otherwise unchanged, so
 * histories recorded before encryption decode and replay as before.
 *
 * Loaded by path (`payloadConverterPath`): in the worker and clients, and bundled into the
 * workflow sandbox, so it imports nothing but @temporalio/common and a leaf module. No
 * module-level state besides the converter itself.
 */
import { DefaultPayloadConverter, type Payload, type PayloadConverter } from '@temporalio/common';
import { PLAINTEXT_METADATA_KEY, markPlaintext } from './plaintext-mark';

class MarkingPayloadConverter implements PayloadConverter {
  private readonly inner = new DefaultPayloadConverter();

  toPayload<T>(value: T): Payload {
    return this.inner.toPayload(value);
  }

  fromPayload<T>(payload: Payload): T {
    const value = this.inner.fromPayload<T>(payload);
    return payload.metadata?.[PLAINTEXT_METADATA_KEY] === undefined ? value : markPlaintext(value);
  }
}

export const payloadConverter: PayloadConverter = new MarkingPayloadConverter();
