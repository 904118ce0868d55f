/**
 * Public API of the typed vendor client. This barrel pulls in undici: workflow code must
 * import the pure modules directly instead (errors, batching, retry-after, validate,
 * documented-values, assumed-values, assumed-shapes, schemas/*), which
 * test/vendor-api/purity.test.ts keeps free of node:* and undici.
 */
export * from './errors';
export { parseRetryAfter } from './retry-after';
export { DEFAULT_TIMEOUTS, newTraceId, type Timeouts } from './http';
export type { CallOptions, ResponseMeta } from './context';
export { createVendorClient, vendorClientFor, type VendorClient, type VendorClientOptions } from './client';
export type { GenerationApi } from './generation';
export type { EraseApi, EraseCreateOptions } from './erase';
export type { AssetsApi, InvokeOptions, ListAllAssetsRequest } from './assets';
export type { ReviewApi } from './review';
export { RAW_ENTRY_POINTS, matchRawEntryPoint, type RawApi, type RawEntryPoint, type RawMethod } from './raw';
export * from './batching';
export * from './config';
export * from './schemas';
export * from './documented-values';
export * from './assumed-values';
export * from './assumed-shapes';
