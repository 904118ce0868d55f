/**
 * A Temporal Client configured the standard way (@temporalio/envconfig): a profile of
 * the Temporal config file (temporal.toml, $TEMPORAL_CONFIG_FILE, $TEMPORAL_PROFILE)
 * overridden by TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS*
 * and TEMPORAL_GRPC_META_*. The same settings the `temporal` CLI reads, so a user who
 * can `temporal workflow list` can `reelflow list`. The payload codec, when
 * REELFLOW_CODEC_KEYS is set, comes from the same environment (src/codec).
 *
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the client carries the SDK's OpenTelemetry
 * interceptor: a start or signal is a span whose context travels in the workflow's
 * headers, so the pipeline's spans join its trace. The spans go to the globally registered
 * tracer provider (the CLI registers one, src/telemetry/tracing.ts; a host app its own).
 */
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { definedEnv } from '../../config/startup';
import { codecDataConverter } from '../../codec';
import { tracingClientInterceptors } from '../../telemetry/tracing';
import { connectTemporal } from '../../config/temporal-connection';

export interface ClientSettings {
  /** Temporal config profile (default: $TEMPORAL_PROFILE, else "default"). */
  profile?: string;
  /** Temporal config file (default: $TEMPORAL_CONFIG_FILE, else the standard location). */
  configFile?: string;
  /** Overrides of the profile and the environment. */
  address?: string;
  namespace?: string;
  /** Environment to read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Connect timeout in ms (default 10 s). */
  connectTimeoutMs?: number;
  /** Default: the payload codec of REELFLOW_CODEC_KEYS / REELFLOW_CODEC_KEY_ID in `env`, if set. */
  dataConverter?: DataConverter;
}

export interface ResolvedClientSettings {
  connectionOptions: ConnectionOptions;
  namespace: string;
  /** For messages: the configured address, or a note that none is configured. */
  address: string;
}

/** For messages when neither a profile nor the environment names an address. */
const UNCONFIGURED_ADDRESS = "the SDK's default address (no TEMPORAL_ADDRESS or profile address set)";

/** Resolves the connection settings without connecting (no I/O but the config file). */
export function resolveClientSettings(settings: ClientSettings = {}): ResolvedClientSettings {
  const env = definedEnv(settings.env ?? process.env);
  if (settings.address) env.TEMPORAL_ADDRESS = settings.address;
  if (settings.namespace) env.TEMPORAL_NAMESPACE = settings.namespace;
  let config;
  try {
    config = loadClientConnectConfig({
      ...(settings.profile ? { profile: settings.profile } : {}),
      ...(settings.configFile ? { configSource: { path: settings.configFile } } : {}),
      overrideEnvVars: env,
    });
  } catch (err) {
    throw new Error(`Temporal client configuration: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  const { connectionOptions } = config;
  const options: ConnectionOptions = {
    ...(connectionOptions.address ? { address: connectionOptions.address } : {}),
    ...(connectionOptions.tls !== undefined ? { tls: connectionOptions.tls } : {}),
    ...(connectionOptions.apiKey !== undefined ? { apiKey: connectionOptions.apiKey } : {}),
    ...(connectionOptions.metadata ? { metadata: connectionOptions.metadata } : {}),
    connectTimeout: settings.connectTimeoutMs ?? 10_000,
  };
  return {
    connectionOptions: options,
    namespace: config.namespace ?? 'default',
    address: connectionOptions.address ?? UNCONFIGURED_ADDRESS,
  };
}

export interface ConnectedClient {
  client: Client;
  connection: Connection;
  namespace: string;
  address: string;
  close(): Promise<void>;
}

/** Connects (eagerly: an unreachable server fails here, with the address in the message). */
export async function connectClient(settings: ClientSettings = {}): Promise<ConnectedClient> {
  const resolved = resolveClientSettings(settings);
  const dataConverter = settings.dataConverter ?? codecDataConverter(settings.env ?? process.env);
  let connection: Connection;
  try {
    connection = await connectTemporal(resolved.connectionOptions);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `cannot connect to Temporal at ${resolved.address} (namespace ${resolved.namespace}): ${reason}. ` +
        'Set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS as needed) or a profile in the Temporal config file.',
      { cause: err },
    );
  }
  const client = new Client({
    connection,
    namespace: resolved.namespace,
    ...(dataConverter ? { dataConverter } : {}),
    ...(await tracingClientInterceptors(settings.env ?? process.env)),
  });
  return {
    client,
    connection,
    namespace: resolved.namespace,
    address: resolved.address,
    close: () => connection.close(),
  };
}
