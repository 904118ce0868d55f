/**
 * Resource ids. Random (crypto), not from the fault PRNG: ids must not shift the
 * fault sequence, and must not repeat across emulator restarts, where a client that
 * kept an old id should get "not found" rather than someone else's task.
 */
import { randomBytes } from 'node:crypto';

export const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

export const newId = {
  generation: () => `cgt-${hex(12)}`,
  erase: () => `erase-${hex(12)}`,
  group: () => `group-${hex(10)}`,
  asset: () => `asset-${hex(10)}`,
  review: () => `review-${hex(12)}`,
  reviewBatch: () => `batch-${hex(8)}`,
  /** 32 hex characters: the shape the spec recommends for trace/track ids. */
  trace: () => hex(16),
};
