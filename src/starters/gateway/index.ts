/**
 * `reelflow/gateway`: the HTTP API and live progress (docs/api.md), to mount in your own server
 * (createGateway) or to run (startGateway, as `reelflow serve` does). A subpath of its own, so
 * the library's users who do not serve HTTP never load the framework.
 */
export { createGateway, OPENAPI_PATH, type Gateway, type GatewayOptions } from './app';
export { startGateway, type RunningGateway } from './server';
export { gatewayConfigFromEnv, parseTokens, GatewayConfigError, type GatewayConfig, type Caller } from './config';
export type { ArchiveAccess } from './context';
export { StatusHub } from './status-hub';
