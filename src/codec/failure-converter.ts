/**
 * The failure converter of the codec (docs/encryption.md, "Encrypted payloads"): a failure's
 * message and stack trace move into `encodedAttributes`, a payload, so the codec encrypts them; the
 * failure itself says "Encoded failure". Types, non-retryable flags and the cause chain stay as
 * they are; details were payloads already.
 *
 * Loaded by path (`failureConverterPath`): in the worker and clients, and bundled into
 * the workflow sandbox, so it imports nothing but @temporalio/common.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
