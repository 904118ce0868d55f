/**
 * `reelflow codec-server [--host h] [--port p] [--cors-origin o …]`: serves /decode and
 * /encode with the payload codec of REELFLOW_CODEC_KEYS, for the Web UI and the
 * `temporal` CLI, until Ctrl-C. REELFLOW_CODEC_SERVER_TOKEN (≥ 16 characters) makes
 * every request need `Authorization: Bearer <token>`; without it the server listens on
 * loopback only, so only people on this machine (or its SSH tunnel) can decode.
 * `--allowed-host h[:port]` (repeatable) or REELFLOW_CODEC_SERVER_HOSTS (comma list) adds
 * Host headers it answers; binding every interface (0.0.0.0) needs one.
 */
import { codecFromEnv, CodecConfigError, KEYS_VARIABLE } from '../../../codec';
import { startCodecServer } from '../../../codec/server';
import { literalHostRange } from '../../../definition/hosts';
import { EXIT } from '../output';
import { UsageError } from '../spec';
import type { CommandFn } from '../session';

export const TOKEN_VARIABLE = 'REELFLOW_CODEC_SERVER_TOKEN';
export const HOSTS_VARIABLE = 'REELFLOW_CODEC_SERVER_HOSTS';
export const DEFAULT_CODEC_PORT = 8888;
/** The dev server's Web UI (`npm run dev-stack`, `temporal server start-dev`). */
export const DEFAULT_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];
const MIN_TOKEN_LENGTH = 16;

function portOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CODEC_PORT;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`option --port: "${value}" is not a port (0-65535)`, '--port', 'codec-server');
  }
  return Number(value);
}

function originsOf(values: string[] | undefined): string[] {
  const origins = values ?? DEFAULT_UI_ORIGINS;
  for (const o of origins) {
    if (!/^https?:\/\/[^\s/?#@]+$/i.test(o)) {
      throw new UsageError(
        `option --cors-origin: "${o}" is not an origin (scheme://host[:port], no path)`,
        '--cors-origin',
        'codec-server',
      );
    }
  }
  return origins;
}

function tokenOf(env: NodeJS.ProcessEnv, host: string): string | undefined {
  const token = env[TOKEN_VARIABLE]?.trim() || undefined;
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new CodecConfigError(TOKEN_VARIABLE, `must be at least ${MIN_TOKEN_LENGTH} characters`);
  }
  if (token === undefined && literalHostRange(host) !== 'loopback') {
    throw new CodecConfigError(TOKEN_VARIABLE, `is required when --host is not a loopback address (got ${host})`);
  }
  return token;
}

function allowedHostsOf(values: string[] | undefined, env: NodeJS.ProcessEnv, host: string): string[] {
  const fromEnv = (env[HOSTS_VARIABLE] ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const hosts = [...(values ?? []), ...fromEnv];
  for (const h of hosts) {
    if (!/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(h)) {
      throw new UsageError(
        `option --allowed-host (or ${HOSTS_VARIABLE}): "${h}" is not a host or host:port`,
        '--allowed-host',
        'codec-server',
      );
    }
  }
  if (hosts.length === 0 && ['0.0.0.0', '::', '[::]'].includes(host)) {
    throw new UsageError(
      `option --allowed-host (or ${HOSTS_VARIABLE}) is required with --host ${host}: the host names clients reach this server by (a DNS-rebinding page sends its own)`,
      '--allowed-host',
      'codec-server',
    );
  }
  return hosts;
}

/** Resolves when `signal` aborts (Ctrl-C): a server command's life. */
export function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}

export const codecServer: CommandFn = async (ctx) => {
  const { env, signal } = ctx.io;
  const host = ctx.str('host') ?? '127.0.0.1';
  const port = portOf(ctx.str('port'));
  const origins = originsOf(ctx.list('cors-origin'));
  const token = tokenOf(env, host);
  const allowedHosts = allowedHostsOf(ctx.list('allowed-host'), env, host);
  const codec = codecFromEnv(env);
  if (!codec) throw new CodecConfigError(KEYS_VARIABLE, 'is required: the keys the codec server decrypts with');
  const server = await startCodecServer({
    host,
    port,
    codec,
    origins,
    allowedHosts,
    log: (line) => ctx.info(`codec server: ${line}`),
    ...(token ? { token } : {}),
  });
  const auth = token ? `bearer token (${TOKEN_VARIABLE})` : 'none (loopback only)';
  ctx.emit({ url: server.url, keyId: codec.keyId, origins, auth: token ? 'bearer' : 'none' }, () => [
    `codec server listening on ${server.url} (POST /decode, /encode); encrypting with key id ${codec.keyId}`,
    `CORS origins: ${origins.join(', ')}; auth: ${auth}`,
    `Web UI: Settings → Codec Server → ${server.url}; temporal CLI: --codec-endpoint ${server.url}`,
  ]);
  try {
    await untilAborted(signal);
  } finally {
    await server.close();
  }
  return EXIT.ok;
};
