/** Every workflow the worker registers. Workflow code only: no I/O, no node built-ins. */
export { videoPipeline } from './video-pipeline';
export { notifyWebhook } from './webhook';
export { tenantGate } from './tenant-gate';
export { tenantLedger } from './tenant-ledger';
