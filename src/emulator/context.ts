/**
 * The per-instance world every handler works in. Built once by startEmulator; no
 * module keeps state of its own. `store` and `counters` are replaced by reset().
 */
import type { ExtraRoute } from './extra-routes';
import { GETASSET_MAX_PER_SECOND, GROUP_QUOTA } from '../vendor-api/documented-values';
import type { Principals } from './auth';
import type { CallbackDispatcher } from './callbacks';
import type { Dialect } from './dialect';
import type { EmulatorClock } from './clock';
import type { Counters } from './counters';
import type { FaultInjector } from './faults';
import type { MediaLibrary } from './media';
import type { UrlSigner } from './signing';
import type { Store } from './store';
import type { RealTimers } from './timers';
import type { Timings } from './timings';

export interface Limits {
  /** Groups per user, including the two system groups (spec: 100, admin-adjustable). */
  groupQuota: number;
  /** GetAsset calls per access token in any 1 s window (spec: 10). */
  getAssetPerSecond: number;
  /** Request log entries kept (oldest dropped first). */
  requestLogSize: number;
}

export const DEFAULT_LIMITS: Limits = {
  groupQuota: GROUP_QUOTA,
  getAssetPerSecond: GETASSET_MAX_PER_SECOND,
  requestLogSize: 5_000,
};

export interface EmulatorContext {
  /** The shapes answers take: reelflow's assumptions ('seed') or the upstream's. */
  dialect: Dialect;
  /** The vendor word in the erase paths (the spec writes `svc`). */
  pathWord: string;
  clock: EmulatorClock;
  timings: Timings;
  limits: Limits;
  store: Store;
  counters: Counters;
  faults: FaultInjector;
  callbacks: CallbackDispatcher;
  signer: UrlSigner;
  media: MediaLibrary;
  principals: Principals;
  timers: RealTimers;
  /** http://host:port once listening: the origin of every URL the emulator issues. */
  baseUrl: string;
  /** host:port spellings that reach this emulator (its URLs count as public). */
  selfHosts: Set<string>;
  /** Routes of the emulator's user (EmulatorOptions.routes), after the vendor's. */
  extraRoutes: readonly ExtraRoute[];
}
