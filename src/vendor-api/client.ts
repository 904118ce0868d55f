/**
 * The vendor client: one object per credential profile, holding one undici Agent per
 * connect timeout (unless a dispatcher is injected). Credentials stay in this closure;
 * nothing returned exposes them.
 */
import { Agent, type Dispatcher } from 'undici';
import { createAssetsApi, type AssetsApi } from './assets';
import { BASE_URL_PATTERN, checkPathWord, type VendorConfig, type VendorCredentials } from './config';
import type { VendorContext } from './context';
import { createEraseApi, type EraseApi } from './erase';
import { VendorConfigError } from './errors';
import { createGenerationApi, type GenerationApi } from './generation';
import { DEFAULT_TIMEOUTS, type Timeouts } from './http';
import { createRawApi, type RawApi } from './raw';
import { createReviewApi, type ReviewApi } from './review';

export interface VendorClientOptions {
  /** {base_url}: generation, erasure, the raw entry points (raw.ts). */
  baseUrl: string;
  /** {identity_url}: asset management and review. */
  identityUrl: string;
  /** Bearer key for {base_url}. Needed only by generation, erase and raw. */
  apiKey?: string;
  /** X-Access-Token. Needed only by assets and review. */
  accessToken?: string;
  /** The vendor word the spec writes as `svc` in the erase paths (default 'svc'; env VENDOR_PATH_WORD). */
  pathWord?: string;
  timeouts?: Partial<Timeouts>;
  /**
   * An undici dispatcher to use instead of the client's own Agents (shared pool, proxy,
   * test double). Its own connect timeout then applies; `timeouts.connectMs` does not.
   */
  dispatcher?: Dispatcher;
  /** Clock for Retry-After HTTP-dates (tests). */
  now?: () => number;
}

export interface VendorClient {
  generation: GenerationApi;
  erase: EraseApi;
  assets: AssetsApi;
  review: ReviewApi;
  raw: RawApi;
  /** Closes the Agents this client created (not an injected dispatcher). */
  close(): Promise<void>;
}

function checkBaseUrl(name: string, value: unknown): string {
  if (typeof value !== 'string' || !BASE_URL_PATTERN.test(value)) {
    throw new VendorConfigError(`vendor client: ${name} must be an http(s) URL without query or credentials`, name);
  }
  return value.replace(/\/+$/, '');
}

function checkTimeouts(t: Partial<Timeouts> = {}): Timeouts {
  const out = { ...DEFAULT_TIMEOUTS, ...t };
  for (const [k, v] of Object.entries(out)) {
    if (!Number.isInteger(v) || v <= 0) {
      throw new VendorConfigError(`vendor client: timeouts.${k} must be a positive integer (ms)`, `timeouts.${k}`);
    }
  }
  return out;
}

export function createVendorClient(opts: VendorClientOptions): VendorClient {
  const owned = new Map<number, Agent>();
  const injected = opts.dispatcher;
  const credentials = Object.freeze({
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
    ...(opts.accessToken ? { accessToken: opts.accessToken } : {}),
  });
  const ctx: VendorContext = {
    baseUrl: checkBaseUrl('baseUrl', opts.baseUrl),
    identityUrl: checkBaseUrl('identityUrl', opts.identityUrl),
    pathWord: checkPathWord('pathWord', opts.pathWord),
    credentials,
    timeouts: Object.freeze(checkTimeouts(opts.timeouts)),
    now: opts.now ?? Date.now,
    dispatcherFor(connectMs) {
      if (injected) return injected;
      let agent = owned.get(connectMs);
      if (!agent) {
        agent = new Agent({ connect: { timeout: connectMs } });
        owned.set(connectMs, agent);
      }
      return agent;
    },
  };
  return {
    generation: createGenerationApi(ctx),
    erase: createEraseApi(ctx),
    assets: createAssetsApi(ctx),
    review: createReviewApi(ctx),
    raw: createRawApi(ctx),
    async close() {
      const agents = [...owned.values()];
      owned.clear();
      await Promise.all(agents.map((a) => a.close()));
    },
  };
}

/**
 * The client of one credential profile: addresses and timeouts from the environment's
 * VendorConfig, secrets from the profile. The worker (one per served profile) and the CLI
 * build theirs here, so the two never differ.
 */
export function vendorClientFor(config: VendorConfig, creds: VendorCredentials): VendorClient {
  return createVendorClient({
    baseUrl: config.baseUrl,
    identityUrl: config.identityUrl,
    timeouts: config.timeouts,
    pathWord: config.pathWord,
    ...(creds.apiKey ? { apiKey: creds.apiKey } : {}),
    ...(creds.accessToken ? { accessToken: creds.accessToken } : {}),
  });
}
