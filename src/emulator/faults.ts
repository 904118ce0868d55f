/**
 * Deterministic fault injection. A config maps an endpoint key (or '*') to fault kinds;
 * each kind fires for the "next N" calls and/or with a probability drawn from a seeded
 * stream. Every (config key, kind) pair has its own stream, seeded from the emulator
 * seed and the pair's name, so traffic on one endpoint never shifts another's faults.
 */
import { z } from 'zod';
import { bump, type Counters } from './counters';
import { hash32, mulberry32 } from './prng';

export const REQUEST_FAULT_KINDS = [
  'resetBeforeCreate',
  'rateLimit429',
  'upstream502',
  'resetAfterCreate',
  'error500AfterCreate',
  'delayAfterCreate',
] as const;
export const CALLBACK_FAULT_KINDS = ['callbackDrop', 'callbackDelay', 'callbackDuplicate'] as const;
/**
 * Task faults: decided once per created task, when its create answers 2xx (task-faults.ts),
 * then shown by that task's queries. Configured under a create key.
 */
export const TASK_FAULT_KINDS = ['readLag', 'unknownState', 'expire'] as const;
export type RequestFaultKind = (typeof REQUEST_FAULT_KINDS)[number];
export type CallbackFaultKind = (typeof CALLBACK_FAULT_KINDS)[number];
export type TaskFaultKind = (typeof TASK_FAULT_KINDS)[number];
export type FaultKind = RequestFaultKind | CallbackFaultKind | TaskFaultKind;

export const ASSET_ACTIONS = [
  'CreateAssetGroup',
  'ListAssetGroups',
  'GetAssetGroup',
  'UpdateAssetGroup',
  'DeleteAssetGroup',
  'CreateAsset',
  'ListAssets',
  'GetAsset',
  'UpdateAsset',
  'DeleteAsset',
] as const;
export type AssetAction = (typeof ASSET_ACTIONS)[number];

/** Keys of endpoints that answer HTTP requests. */
export const REQUEST_ENDPOINT_KEYS = [
  'generation.create',
  'generation.get',
  'erase.create',
  'erase.get',
  ...ASSET_ACTIONS.map((a) => `assets.${a}` as const),
  'review.sync',
  'review.async',
  'review.get',
  'media.get',
] as const;
/** Creates whose tasks task faults apply to (expire: generation only). */
export const CREATE_KEYS = [
  'generation.create',
  'erase.create',
  'review.async',
  'review.sync',
  'assets.CreateAsset',
] as const;
export type CreateKey = (typeof CREATE_KEYS)[number];

/** Keys of outgoing callbacks, one per interface that sends them. */
export const CALLBACK_KEYS = ['generation.callback', 'erase.callback', 'review.callback'] as const;
export type EndpointKey = (typeof REQUEST_ENDPOINT_KEYS)[number];
export type CallbackKey = (typeof CALLBACK_KEYS)[number];

const rule = z.strictObject({
  /** Chance per call, 0..1, drawn from the seeded stream. */
  probability: z.number().min(0).max(1).optional(),
  /** Inject on the next N calls (after `skip`), before any probability applies. */
  next: z.number().int().min(0).optional(),
  /** Let this many calls pass untouched first (e.g. skip 2, next 1 = fail the 3rd call). */
  skip: z.number().int().min(0).optional(),
});
const withMs = rule.extend({ ms: z.number().int().min(0).optional() });
const withRetryAfter = rule.extend({ retryAfterSeconds: z.number().int().min(0).optional() });
/** Queries of the new task answer "not found" for `ms` after its create answered. */
const readLag = rule.extend({ ms: z.number().int().min(0) });
/** Queries report `state` instead of the real one: the first `queries` of them, or forever. */
const unknownState = rule.extend({ state: z.string().min(1), queries: z.number().int().min(1).optional() });

const endpointFaults = z.strictObject({
  resetBeforeCreate: rule.optional(),
  rateLimit429: withRetryAfter.optional(),
  upstream502: rule.optional(),
  resetAfterCreate: rule.optional(),
  error500AfterCreate: rule.optional(),
  delayAfterCreate: withMs.optional(),
  callbackDrop: rule.optional(),
  callbackDelay: withMs.optional(),
  callbackDuplicate: rule.optional(),
  readLag: readLag.optional(),
  unknownState: unknownState.optional(),
  /** The generation task ends `expired` instead of its planned end. */
  expire: rule.optional(),
});

/** Served from local data with no upstream call (docs/vendor-contract.md), so upstream502 never applies. */
const NO_UPSTREAM = new Set<string>(['assets.ListAssetGroups']);

const KNOWN_KEYS = new Set<string>(['*', ...REQUEST_ENDPOINT_KEYS, ...CALLBACK_KEYS]);

export const FaultConfigSchema = z.record(z.string(), endpointFaults).superRefine((config, ctx) => {
  for (const [key, faults] of Object.entries(config)) {
    if (!KNOWN_KEYS.has(key)) {
      ctx.addIssue({ code: 'custom', path: [key], message: `unknown endpoint key "${key}"` });
      continue;
    }
    // A callback fault on a request key (or the reverse) would silently never fire.
    const isCallbackKey = key.endsWith('.callback');
    for (const kind of Object.keys(faults)) {
      const taskProblem = taskKindProblem(key, kind);
      if (taskProblem) {
        ctx.addIssue({ code: 'custom', path: [key, kind], message: taskProblem });
        continue;
      }
      if (kind === 'upstream502' && NO_UPSTREAM.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key, kind],
          message: `${key} makes no upstream call (docs/vendor-contract.md)`,
        });
      }
      const callbackKind = (CALLBACK_FAULT_KINDS as readonly string[]).includes(kind);
      if (key !== '*' && callbackKind !== isCallbackKey) {
        ctx.addIssue({
          code: 'custom',
          path: [key, kind],
          message: callbackKind
            ? `${kind} belongs under a callback key (${CALLBACK_KEYS.join(', ')})`
            : `${kind} belongs under a request endpoint key, not ${key}`,
        });
      }
    }
  }
});

/** Why a task fault kind cannot go under `key`, if it cannot. */
function taskKindProblem(key: string, kind: string): string | undefined {
  if (key === '*' || !(TASK_FAULT_KINDS as readonly string[]).includes(kind)) return undefined;
  if (kind === 'expire' && key !== 'generation.create') return 'expire belongs under generation.create';
  if (!(CREATE_KEYS as readonly string[]).includes(key))
    return `${kind} belongs under a create key (${CREATE_KEYS.join(', ')})`;
  return undefined;
}

export type FaultRule = z.infer<typeof rule>;
export type EndpointFaults = z.infer<typeof endpointFaults>;
export type FaultConfig = z.infer<typeof FaultConfigSchema>;

/** Parses untrusted config (HTTP body, CLI file); throws with a readable message. */
export function parseFaultConfig(input: unknown): FaultConfig {
  const parsed = FaultConfigSchema.safeParse(input ?? {});
  if (!parsed.success) throw new Error(`invalid fault config: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** What an injected fault carries: its rule (for ms / retryAfterSeconds). */
export type Injected = FaultRule & { ms?: number; retryAfterSeconds?: number; state?: string; queries?: number };

interface StreamState {
  seen: number;
  remainingNext: number;
  draw: () => number;
}

export class FaultInjector {
  private config: FaultConfig = {};
  private streams = new Map<string, StreamState>();

  constructor(
    private readonly seed: number,
    config: FaultConfig,
    private readonly counters: () => Counters,
  ) {
    this.set(config);
  }

  /** Replaces the config; "next"/"skip" counts and random streams start afresh. */
  set(config: FaultConfig): void {
    this.config = structuredClone(config);
    this.streams.clear();
  }

  get(): FaultConfig {
    return structuredClone(this.config);
  }

  /**
   * Decides whether `kind` fires for this call of `key`; counts it when it does.
   * A specific key's rule for a kind overrides the '*' rule for that kind.
   */
  roll(key: EndpointKey | CallbackKey, kind: FaultKind): Injected | undefined {
    if (kind === 'expire' && key !== 'generation.create') return undefined;
    if (kind === 'upstream502' && NO_UPSTREAM.has(key)) return undefined;
    const specific = this.config[key]?.[kind];
    const configKey = specific ? key : '*';
    const found: Injected | undefined = specific ?? this.config['*']?.[kind];
    if (!found) return undefined;

    const streamKey = `${configKey}\u0000${kind}`;
    let state = this.streams.get(streamKey);
    if (!state) {
      state = { seen: 0, remainingNext: found.next ?? 0, draw: mulberry32(hash32(`${this.seed}:${streamKey}`)) };
      this.streams.set(streamKey, state);
    }
    state.seen += 1;
    if (state.seen <= (found.skip ?? 0)) return undefined;

    let fire = false;
    if (state.remainingNext > 0) {
      state.remainingNext -= 1;
      fire = true;
    } else if (found.probability !== undefined && found.probability > 0) {
      fire = state.draw() < found.probability;
    }
    if (!fire) return undefined;

    const counters = this.counters();
    bump(counters.faultsInjected, kind);
    bump((counters.faultsByEndpoint[key] ??= {}), kind);
    return found;
  }
}
