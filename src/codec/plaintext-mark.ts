/**
 * The codec's strict mode (docs/encryption.md, "Encrypted payloads"): how a payload that reached a
 * strict worker WITHOUT encryption is told apart, from the codec (which tags it) to the workflow
 * (which sees the mark on the decoded value). A leaf module without imports: the codec, the bundled
 * payload converter and workflow code all import it.
 */

/** Metadata key the strict codec's decode adds to a payload that arrived in plaintext. */
export const PLAINTEXT_METADATA_KEY = 'reelflow-plaintext';

/** Non-enumerable property the payload converter puts on an object decoded from such a payload. */
export const PLAINTEXT_MARK: unique symbol = Symbol.for('reelflow.plaintext') as never;

/** True when `value` was decoded from a payload that reached a strict worker in plaintext. */
export function isPlaintext(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, PLAINTEXT_MARK);
}

/** Marks `value` as decoded from plaintext (an object not frozen; anything else is left as it is). */
export function markPlaintext<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || isPlaintext(value)) return value;
  Object.defineProperty(value, PLAINTEXT_MARK, { value: true, enumerable: false });
  return value;
}
