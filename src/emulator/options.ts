/** Options of startEmulator, and their defaults. */
import { DEFAULT_LIMITS, type Limits } from './context';
import { checkControlToken } from './control-access';
import { DIALECTS, type Dialect } from './dialect';
import { parseFaultConfig, type FaultConfig } from './faults';
import { resolveTimings, type Profile, type Timings } from './timings';
import type { ExtraRoute } from './extra-routes';

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Base URL clients use to reach this emulator (e.g. http://emulator:8080 in a compose
   * network). Issued media URLs use it. Default: http://<host>:<port>.
   */
  publicUrl?: string;
  /** Bearer API keys for generation and erasure. Default ['emu-key']. */
  apiKeys?: string[];
  /** Access tokens for asset management and review; each is one user. Default ['emu-user-1', 'emu-user-2']. */
  accessTokens?: string[];
  /** Processing times: 'fast' (default, seconds), 'realistic' (spec's times), or explicit timings over 'fast'. */
  profile?: Profile | Partial<Timings>;
  /** Seed of the fault-injection PRNG. Default 1. */
  seed?: number;
  /** Initial fault config (see faults.ts); reset() returns to it. */
  faults?: FaultConfig;
  /** Base clock (ms since epoch); the emulator adds its own advanceable offset. */
  clock?: () => number;
  /** Quotas and sizes; spec values by default. */
  limits?: Partial<Limits>;
  /**
   * Which shapes it answers in: 'seed' (default, reelflow's assumptions) or 'upstream'
   * (the Ark / Volcengine OpenAPI shapes of the service behind the vendor). See README-emulator.md.
   */
  dialect?: Dialect;
  /** The vendor word the spec writes as `svc` in the erase paths. Default 'svc'. */
  pathWord?: string;
  /**
   * Bearer token the /__emulator/ control API requires (env EMULATOR_CONTROL_TOKEN in the
   * CLI). Without one, the control API answers only when the emulator binds to loopback.
   */
  controlToken?: string;
  /** Routes of your own, tried after the vendor's and before the gateway's 404 (see extra-routes.ts). */
  routes?: ExtraRoute[];
  /**
   * A folder with the generated.mp4 and erased.mp4 to serve instead of the samples (e.g. large
   * files for the archive's tests and bench; EMULATOR_MEDIA_DIR in the CLI). Held in memory.
   */
  mediaDir?: string;
}

export const DEFAULT_API_KEYS = ['emu-key'];
export const DEFAULT_ACCESS_TOKENS = ['emu-user-1', 'emu-user-2'];

export interface ResolvedOptions {
  port: number;
  host: string;
  publicUrl?: string;
  apiKeys: string[];
  accessTokens: string[];
  timings: Timings;
  seed: number;
  faults: FaultConfig;
  clock: () => number;
  limits: Limits;
  dialect: Dialect;
  pathWord: string;
  controlToken?: string;
  routes: ExtraRoute[];
  mediaDir?: string;
}

export function resolveOptions(opts: EmulatorOptions = {}): ResolvedOptions {
  const apiKeys = opts.apiKeys?.length ? opts.apiKeys : DEFAULT_API_KEYS;
  const accessTokens = opts.accessTokens?.length ? opts.accessTokens : DEFAULT_ACCESS_TOKENS;
  if ([...apiKeys, ...accessTokens].some((k) => !/^\S+$/.test(k))) {
    throw new Error('API keys and access tokens must be non-empty and without whitespace');
  }
  const dialect = opts.dialect ?? 'seed';
  if (!DIALECTS.includes(dialect)) throw new Error(`dialect must be ${DIALECTS.join(' or ')}, got ${String(dialect)}`);
  const pathWord = opts.pathWord ?? 'svc';
  if (!/^[A-Za-z0-9_-]+$/.test(pathWord)) throw new Error('pathWord must be letters, digits, - and _ only');
  return {
    port: opts.port ?? 0,
    host: opts.host ?? '127.0.0.1',
    ...(opts.publicUrl ? { publicUrl: opts.publicUrl.replace(/\/+$/, '') } : {}),
    apiKeys: [...apiKeys],
    accessTokens: [...new Set(accessTokens)],
    timings: resolveTimings(opts.profile),
    seed: opts.seed ?? 1,
    faults: parseFaultConfig(opts.faults ?? {}),
    clock: opts.clock ?? Date.now,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    dialect,
    pathWord,
    ...(opts.controlToken !== undefined ? { controlToken: checkControlToken(opts.controlToken) } : {}),
    routes: [...(opts.routes ?? [])],
    ...(opts.mediaDir !== undefined ? { mediaDir: opts.mediaDir } : {}),
  };
}
