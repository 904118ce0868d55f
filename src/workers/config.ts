/**
 * Worker configuration from the environment, validated with zod. The Temporal
 * connection itself comes from @temporalio/envconfig (TEMPORAL_ADDRESS, ...) and the
 * vendor from src/vendor-api/config.ts; this is what is reelflow's own.
 *
 *   REELFLOW_TASK_QUEUE                  default "reelflow"
 *   REELFLOW_PROFILES                    credential profiles served, comma list; default "default"
 *   REELFLOW_ARCHIVE_DIR                 default ./archive (resolved against the working dir)
 *   REELFLOW_ARCHIVE_STORE               s3://bucket[/prefix]: archive to an object store instead
 *                                        (+ REELFLOW_ARCHIVE_SSE, AWS_*: src/config/object-store.ts)
 *   REELFLOW_ARCHIVE_ALLOW_PRIVATE       1/true: archive downloads may reach loopback/private addresses
 *                                        (local testing against the emulator); default 0. Refused
 *                                        while VENDOR_BASE_URL is a public host (the real vendor)
 *   REELFLOW_ARCHIVE_MAX_BYTES           largest archived file; default 2147483648 (2 GiB)
 *   REELFLOW_ARCHIVE_TOKEN               bearer token, ≥ 16 chars: when set, this process serves the
 *                                        archive over HTTP (GET /archive/…, ./archive-server.ts)
 *   REELFLOW_ARCHIVE_PORT                that server's port; default 8090 (0: any free port)
 *   REELFLOW_ARCHIVE_HOST                that server's interface; default 127.0.0.1 (loopback)
 *   REELFLOW_CALLBACK_BASE_URL           public base of the callback receiver; optional
 *   REELFLOW_CALLBACK_SECRET             HMAC key, ≥ 16 chars; required with the base URL or port
 *   REELFLOW_CALLBACK_PORT               when set, this process also runs the receiver
 *   REELFLOW_CALLBACK_HOST               receiver interface; default 0.0.0.0
 *                                        (the receiver's rules: src/callbacks/config.ts)
 *   REELFLOW_NOTIFY_URL                  webhook URL for definitions without options.notify; optional
 *                                        (then every profile needs REELFLOW_PROFILE_<NAME>_WEBHOOK_SECRET)
 *   REELFLOW_NOTIFY_ALLOW_PRIVATE        private webhook targets this worker may reach (its URL and the
 *                                        definitions'): comma list of host names, IPs and CIDR subnets;
 *                                        1/true: all (local testing); default none
 *   REELFLOW_NOTIFY_TIMEOUT              seconds one webhook POST may take, answer body included; default 30
 *   REELFLOW_TENANTS_FILE                tenants, their limits, budgets, credential profiles (each one
 *                                        served: REELFLOW_PROFILES) and the price table (JSON,
 *                                        docs/tenants.md); unset: tenants are off
 *   REELFLOW_GETASSET_RATE               GetAsset per second per profile, all workers; default 9, ≤ 10
 *   REELFLOW_MAX_CONCURRENT_ACTIVITIES   default 10 per core (20 on 2 cores)
 *   REELFLOW_MAX_CONCURRENT_WORKFLOW_TASKS  default 2 per core (4 on 2 cores), ≥ 2
 *   REELFLOW_MAX_CACHED_WORKFLOWS        pipelines kept in the worker's cache; default the SDK's (from the heap size)
 *   REELFLOW_ISOLATE_EXECUTION_TIMEOUT   seconds one workflow activation may run; default 30 (docs/deploy.md)
 *   REELFLOW_METRICS_BIND                Prometheus scrape address, e.g. 0.0.0.0:9464; optional
 *   REELFLOW_HEALTH_BIND                 /livez and /readyz, e.g. 127.0.0.1:8091; off when unset
 *   REELFLOW_METRICS_REFRESH             seconds between visibility counts for gauges; default 15
 *   REELFLOW_LOG_LEVEL                   trace|debug|info|warn|error; default info (JSON on stdout)
 *   REELFLOW_STRICT_START                default 1: a failed start-up check (docs/doctor.md) refuses the
 *                                        start; 0/false opts out (each ✗ is then a warning)
 *   OTEL_EXPORTER_OTLP_ENDPOINT          OTLP/HTTP collector: tracing on when set (src/telemetry/tracing.ts)
 *
 * Errors name the variable; a secret's value is never printed (nor is any other value:
 * the name and the rule are enough to fix it).
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_ARCHIVE_MAX_BYTES } from '../activities/archive';
import { objectUrl, parseArchiveStore, type ArchiveStoreConfig } from '../config/object-store';
import {
  CALLBACK_VARIABLES,
  DEFAULT_CALLBACK_HOST,
  SECRET_REQUIRED,
  receiverLimitsOf,
  type ReceiverLimits,
} from '../callbacks/config';
import {
  ConfigError,
  LOG_VARIABLES,
  TRACING_VARIABLES,
  optional,
  pickVariables,
  problemsOf,
  wholeNumber,
  type ConfigProblem,
  type Env,
} from '../config/env';
import { DEFAULT_LOG_LEVEL, type LogLevel } from '../telemetry/levels';
import { nonPublicHostReason } from '../definition/hosts';
import { GETASSET_MAX_PER_SECOND } from '../vendor-api/documented-values';
import { parseHttpUrl } from '../vendor-api/schemas/common';
import { DEFAULT_TASK_QUEUE } from '../contract/messages';
import { loadTenantsConfig, TenantsConfigError, unservedProfiles, type TenantsConfig } from '../tenants/config';
import {
  describeAllowance,
  webhookHostRefusal,
  parseWebhookAllowance,
  type WebhookAllowance,
} from '../webhooks/allowance';

/** One webhook POST, answer body included, at most this long by default. */
export const DEFAULT_WEBHOOK_TIMEOUT_SECONDS = 30;

export type { Env } from '../config/env';

/**
 * GetAsset per second per profile, all worker processes together. The Temporal server's
 * limit alone bursts a second's worth at once (3/s was the most that stayed under the
 * vendor's 10 with worker lag); each process now also spaces its calls by its share of
 * the rate (./getasset-pacer.ts), so the vendor's 1-s window holds at most `rate` calls.
 * 9, not 10: the spacing (111 ms, 1111 ms for 10 gaps) leaves ~0.1 s for the network and
 * a busy event loop to bunch calls before an eleventh lands in one vendor second.
 */
export const DEFAULT_GETASSET_RATE_PER_SECOND = 9;

/** The archive server's defaults (docs/deploy.md): beside the callback receiver's 8089. */
export const DEFAULT_ARCHIVE_PORT = 8090;

/** `host:port` or `[v6]:port`, as REELFLOW_METRICS_BIND and REELFLOW_HEALTH_BIND take it. */
const HOST_PORT = /^[^\s:]*:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/;

function hostPortOf(bind: string): { host: string; port: number } {
  const at = bind.lastIndexOf(':');
  return { host: bind.slice(0, at).replace(/^\[|\]$/g, '') || '0.0.0.0', port: Number(bind.slice(at + 1)) };
}
/** Loopback: archived videos are for this host unless REELFLOW_ARCHIVE_HOST says otherwise (docs/deploy.md). */
const DEFAULT_ARCHIVE_HOST = '127.0.0.1';
export const MIN_ARCHIVE_TOKEN_LENGTH = 16;

/** A count of the queue's waiting pipelines every 15 s: cheap for visibility, fresh enough for an alert. */
const DEFAULT_METRICS_REFRESH_SECONDS = 15;

/**
 * Past this, the SDK stops a workflow activation; when that lands in the activation's
 * microtasks, Node aborts the whole worker process ("async hook stack has become corrupted").
 * The SDK's 5 s is reached by healthy activations on a starved machine (docs/deploy.md).
 */
export const DEFAULT_ISOLATE_EXECUTION_TIMEOUT_SECONDS = 30;

export interface WorkerConfig {
  taskQueue: string;
  profiles: string[];
  archiveRoot: string;
  archiveAllowPrivate: boolean;
  archiveMaxBytes: number;
  /** Where the archive server listens: set when REELFLOW_ARCHIVE_TOKEN is (docs/library.md "Archived files"). */
  archiveServer?: { host: string; port: number };
  /**
   * REELFLOW_ARCHIVE_STORE and its encryption: archive to this object store rather than
   * `archiveRoot` (src/config/object-store.ts). Its client reads the AWS variables.
   */
  archiveStore?: ArchiveStoreConfig;
  /** REELFLOW_ARCHIVE_TOKEN. Non-enumerable: JSON.stringify, util.inspect and spreads never show it. */
  readonly archiveToken?: string;
  webhookUrl?: string;
  /** Private webhook targets allowed (REELFLOW_NOTIFY_ALLOW_PRIVATE); a definition cannot widen it. */
  webhookAllowPrivate: WebhookAllowance;
  /** Overall deadline of one webhook POST, ms (REELFLOW_NOTIFY_TIMEOUT). */
  webhookTimeoutMs: number;
  callbackBaseUrl?: string;
  /** Non-enumerable: JSON.stringify, util.inspect and spreads never show it. */
  readonly callbackSecret?: string;
  callbackPort?: number;
  callbackHost: string;
  /** REELFLOW_CALLBACK_MAX_* (src/callbacks/config.ts). */
  callbackLimits: ReceiverLimits;
  getAssetRatePerSecond: number;
  maxConcurrentActivities: number;
  maxConcurrentWorkflowTasks: number;
  /** Workflows kept in memory between tasks; undefined = the SDK's default (from the heap size). */
  maxCachedWorkflows?: number;
  /** Wall seconds one workflow activation may run before the SDK stops it. */
  isolateExecutionTimeoutSeconds: number;
  metricsBind?: string;
  /** The health listener's address (REELFLOW_HEALTH_BIND): /livez, /readyz (docs/deploy.md). */
  healthBind?: { host: string; port: number };
  /** Seconds between the visibility counts behind reelflow_operator_waits. */
  metricsRefreshSeconds: number;
  logLevel: LogLevel;
  /** OTLP/HTTP collector base URL: tracing is on when set. */
  tracingEndpoint?: string;
  /** REELFLOW_STRICT_START (default on): a failed start-up check refuses the start (off: a warning). */
  strictStart: boolean;
  /** REELFLOW_TENANTS_FILE, parsed (docs/tenants.md); absent: tenants are off. */
  tenants?: TenantsConfig;
}

export class WorkerConfigError extends ConfigError {
  override readonly name = 'WorkerConfigError';
  constructor(problems: ConfigProblem[]) {
    super(problems);
  }
}

const flag = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(1|0|true|false)$/, 'must be 1, 0, true or false')
  .transform((s) => s === '1' || s === 'true');

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const TASK_QUEUE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * Private archive downloads are for the emulator (loopback, a private address, or a
 * single-label compose name such as `emulator`). Against a public vendor they would let
 * the media URLs the vendor returns reach the worker's own network.
 */
function publicVendorProblem(vendorBaseUrl: string | undefined): string | undefined {
  const url = vendorBaseUrl === undefined ? undefined : parseHttpUrl(vendorBaseUrl);
  if (!url?.ok || nonPublicHostReason(url.host)) return undefined;
  return `must be 0 (or unset) while VENDOR_BASE_URL is a public host (${url.host}): private archive downloads are for the local emulator only`;
}

/** The archive server's variables hang together: a port or host needs the token; its port is its own. */
function archiveServerProblems(e: {
  REELFLOW_ARCHIVE_TOKEN?: string | undefined;
  REELFLOW_ARCHIVE_PORT?: number | undefined;
  REELFLOW_ARCHIVE_HOST?: string | undefined;
  REELFLOW_CALLBACK_PORT?: number | undefined;
}): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  if (e.REELFLOW_ARCHIVE_TOKEN === undefined) {
    if (e.REELFLOW_ARCHIVE_PORT !== undefined || e.REELFLOW_ARCHIVE_HOST !== undefined) {
      problems.push({
        path: ['REELFLOW_ARCHIVE_TOKEN'],
        message: 'is required when REELFLOW_ARCHIVE_PORT or REELFLOW_ARCHIVE_HOST is set (the archive server needs it)',
      });
    }
    return problems;
  }
  const port = e.REELFLOW_ARCHIVE_PORT ?? DEFAULT_ARCHIVE_PORT;
  if (port !== 0 && port === e.REELFLOW_CALLBACK_PORT) {
    problems.push({ path: ['REELFLOW_ARCHIVE_PORT'], message: 'must differ from REELFLOW_CALLBACK_PORT' });
  }
  return problems;
}

/** Where the worker runs and what it serves: task queue, profiles, archive, webhooks, callbacks' public URL. */
function deploymentVariables() {
  return {
    REELFLOW_TASK_QUEUE: optional(
      z.string().trim().regex(TASK_QUEUE, 'must be letters, digits, ".", "-", "_" (≤ 200)'),
    ),
    REELFLOW_PROFILES: optional(
      z
        .string()
        .transform((s) => [
          ...new Set(
            s
              .split(',')
              .map((p) => p.trim())
              .filter(Boolean),
          ),
        ])
        .pipe(
          z
            .array(z.string().regex(PROFILE_NAME, 'names must be letters, digits, "-" and "_"'))
            .min(1, 'must name at least one profile'),
        ),
    ),
    REELFLOW_ARCHIVE_DIR: optional(z.string()),
    REELFLOW_TENANTS_FILE: optional(
      z.string().transform((file, ctx) => {
        try {
          return loadTenantsConfig(file);
        } catch (err) {
          if (!(err instanceof TenantsConfigError)) throw err;
          ctx.addIssue({ code: 'custom', message: err.message.replace(/^REELFLOW_TENANTS_FILE: /, '') });
          return z.NEVER;
        }
      }),
    ),
    REELFLOW_ARCHIVE_ALLOW_PRIVATE: optional(flag),
    REELFLOW_STRICT_START: optional(flag),
    REELFLOW_NOTIFY_URL: optional(
      z
        .string()
        .trim()
        .refine((s) => parseHttpUrl(s).ok, 'must be an http(s) URL without credentials'),
    ),
    REELFLOW_NOTIFY_ALLOW_PRIVATE: optional(
      z.string().transform((v, ctx) => {
        try {
          return parseWebhookAllowance(v);
        } catch (err) {
          ctx.addIssue({
            code: 'custom',
            message: `${(err as Error).message}: must be 1/true (all), 0/false, or a comma list of host names, IPs and CIDR subnets`,
          });
          return z.NEVER;
        }
      }),
    ),
    // Under the delivery activity's 60 s start-to-close timeout.
    REELFLOW_NOTIFY_TIMEOUT: optional(wholeNumber(1, 55)),
    // Read here only to judge REELFLOW_ARCHIVE_ALLOW_PRIVATE; src/vendor-api/config.ts validates it.
    VENDOR_BASE_URL: optional(z.string().trim()),
    REELFLOW_ARCHIVE_MAX_BYTES: optional(wholeNumber(1, Number.MAX_SAFE_INTEGER)),
    REELFLOW_ARCHIVE_TOKEN: optional(
      z.string().min(MIN_ARCHIVE_TOKEN_LENGTH, `must be at least ${MIN_ARCHIVE_TOKEN_LENGTH} characters`),
    ),
    REELFLOW_ARCHIVE_PORT: optional(wholeNumber(0, 65535)),
    REELFLOW_ARCHIVE_HOST: optional(z.string().trim().min(1)),
    REELFLOW_CALLBACK_BASE_URL: optional(
      z
        .string()
        .trim()
        .regex(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/i, 'must be an http(s) URL without query, fragment or credentials')
        .transform((s) => s.replace(/\/+$/, '')),
    ),
  };
}

/** The archive's object store (src/config/object-store.ts); its client reads the AWS_* variables itself. */
const ARCHIVE_STORE_VARIABLES = {
  REELFLOW_ARCHIVE_STORE: optional(
    z.string().transform((raw, ctx) => {
      const store = parseArchiveStore(raw);
      if ('problem' in store) {
        ctx.addIssue({ code: 'custom', message: store.problem });
        return z.NEVER;
      }
      return store;
    }),
  ),
  REELFLOW_ARCHIVE_SSE: optional(z.enum(['AES256', 'aws:kms'], { error: 'must be AES256 or aws:kms' })),
  REELFLOW_ARCHIVE_SSE_KMS_KEY_ID: optional(z.string().trim().min(1)),
};

/** How hard the worker works: the GetAsset rate, concurrency, cache, metrics. */
function tuningVariables() {
  return {
    REELFLOW_GETASSET_RATE: optional(
      z
        .string()
        .trim()
        .regex(/^\d+(\.\d+)?$/, 'must be a number')
        .transform(Number)
        .pipe(
          z
            .number()
            .positive('must be above 0')
            .max(GETASSET_MAX_PER_SECOND, `must be at most ${GETASSET_MAX_PER_SECOND} (the vendor's limit per token)`),
        ),
    ),
    REELFLOW_MAX_CONCURRENT_ACTIVITIES: optional(wholeNumber(1, 10_000)),
    REELFLOW_MAX_CONCURRENT_WORKFLOW_TASKS: optional(wholeNumber(2, 10_000)),
    REELFLOW_MAX_CACHED_WORKFLOWS: optional(wholeNumber(2, 1_000_000)),
    REELFLOW_ISOLATE_EXECUTION_TIMEOUT: optional(wholeNumber(1, 600)),
    REELFLOW_METRICS_BIND: optional(z.string().trim().regex(HOST_PORT, 'must be host:port')),
    REELFLOW_METRICS_REFRESH: optional(wholeNumber(1, 3600)),
    REELFLOW_HEALTH_BIND: optional(z.string().trim().regex(HOST_PORT, 'must be host:port, e.g. 127.0.0.1:8091')),
  };
}

const workerVariables = () =>
  z.object({
    ...deploymentVariables(),
    ...ARCHIVE_STORE_VARIABLES,
    ...CALLBACK_VARIABLES,
    ...TRACING_VARIABLES,
    ...tuningVariables(),
    ...LOG_VARIABLES,
  });

type WorkerVariables = z.output<ReturnType<typeof workerVariables>>;

/** Rules across variables: webhook and archive targets against their allowances, the secret the callbacks need. */
function crossChecks(e: WorkerVariables, ctx: z.RefinementCtx<WorkerVariables>): void {
  const needsSecret = e.REELFLOW_CALLBACK_BASE_URL !== undefined || e.REELFLOW_CALLBACK_PORT !== undefined;
  const webhookHost = e.REELFLOW_NOTIFY_URL === undefined ? undefined : parseHttpUrl(e.REELFLOW_NOTIFY_URL);
  const allowance = e.REELFLOW_NOTIFY_ALLOW_PRIVATE ?? parseWebhookAllowance(undefined);
  const webhookProblem = webhookHost?.ok && webhookHostRefusal(allowance, webhookHost.host);
  if (webhookProblem) {
    ctx.addIssue({ code: 'custom', path: ['REELFLOW_NOTIFY_URL'], message: webhookProblem });
  }
  const archiveProblem = e.REELFLOW_ARCHIVE_ALLOW_PRIVATE && publicVendorProblem(e.VENDOR_BASE_URL);
  if (archiveProblem) {
    ctx.addIssue({ code: 'custom', path: ['REELFLOW_ARCHIVE_ALLOW_PRIVATE'], message: archiveProblem });
  }
  for (const issue of archiveServerProblems(e)) ctx.addIssue({ code: 'custom', ...issue });
  for (const v of ['REELFLOW_ARCHIVE_SSE', 'REELFLOW_ARCHIVE_SSE_KMS_KEY_ID'] as const) {
    if (e[v] !== undefined && e.REELFLOW_ARCHIVE_STORE === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [v],
        message: 'applies to an object store: set REELFLOW_ARCHIVE_STORE too',
      });
    }
  }
  // A tenant bound to a profile no worker of this queue serves could never run (docs/tenants.md).
  const tenants = e.REELFLOW_TENANTS_FILE;
  for (const message of tenants ? unservedProfiles(tenants, e.REELFLOW_PROFILES ?? ['default']) : []) {
    ctx.addIssue({ code: 'custom', path: ['REELFLOW_TENANTS_FILE'], message });
  }
  if (needsSecret && e.REELFLOW_CALLBACK_SECRET === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['REELFLOW_CALLBACK_SECRET'],
      message: SECRET_REQUIRED,
    });
  }
}

function toWorkerConfig(e: WorkerVariables, cores: number): WorkerConfig {
  const config: WorkerConfig = {
    taskQueue: e.REELFLOW_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    profiles: e.REELFLOW_PROFILES ?? ['default'],
    archiveRoot: path.resolve(e.REELFLOW_ARCHIVE_DIR ?? 'archive'),
    archiveAllowPrivate: e.REELFLOW_ARCHIVE_ALLOW_PRIVATE ?? false,
    archiveMaxBytes: e.REELFLOW_ARCHIVE_MAX_BYTES ?? DEFAULT_ARCHIVE_MAX_BYTES,
    webhookAllowPrivate: e.REELFLOW_NOTIFY_ALLOW_PRIVATE ?? parseWebhookAllowance(undefined),
    webhookTimeoutMs: (e.REELFLOW_NOTIFY_TIMEOUT ?? DEFAULT_WEBHOOK_TIMEOUT_SECONDS) * 1000,
    callbackHost: e.REELFLOW_CALLBACK_HOST ?? DEFAULT_CALLBACK_HOST,
    callbackLimits: receiverLimitsOf(e),
    getAssetRatePerSecond: e.REELFLOW_GETASSET_RATE ?? DEFAULT_GETASSET_RATE_PER_SECOND,
    // Activities wait on HTTP, not CPU: 10 per core. Workflow tasks: 2 per core; 8 per core
    // ran 1000 pipelines sooner but 10 later (docs/benchmarks.md, "What remains").
    maxConcurrentActivities: e.REELFLOW_MAX_CONCURRENT_ACTIVITIES ?? 10 * cores,
    maxConcurrentWorkflowTasks: e.REELFLOW_MAX_CONCURRENT_WORKFLOW_TASKS ?? Math.max(2, 2 * cores),
    isolateExecutionTimeoutSeconds: e.REELFLOW_ISOLATE_EXECUTION_TIMEOUT ?? DEFAULT_ISOLATE_EXECUTION_TIMEOUT_SECONDS,
    metricsRefreshSeconds: e.REELFLOW_METRICS_REFRESH ?? DEFAULT_METRICS_REFRESH_SECONDS,
    logLevel: e.REELFLOW_LOG_LEVEL ?? DEFAULT_LOG_LEVEL,
    strictStart: e.REELFLOW_STRICT_START ?? true,
  };
  if (e.REELFLOW_ARCHIVE_STORE !== undefined) {
    config.archiveStore = {
      ...e.REELFLOW_ARCHIVE_STORE,
      ...(e.REELFLOW_ARCHIVE_SSE ? { sse: e.REELFLOW_ARCHIVE_SSE } : {}),
      ...(e.REELFLOW_ARCHIVE_SSE_KMS_KEY_ID ? { sseKmsKeyId: e.REELFLOW_ARCHIVE_SSE_KMS_KEY_ID } : {}),
    };
  }
  if (e.REELFLOW_TENANTS_FILE !== undefined) config.tenants = e.REELFLOW_TENANTS_FILE;
  if (e.REELFLOW_MAX_CACHED_WORKFLOWS !== undefined) config.maxCachedWorkflows = e.REELFLOW_MAX_CACHED_WORKFLOWS;
  if (e.REELFLOW_CALLBACK_BASE_URL !== undefined) config.callbackBaseUrl = e.REELFLOW_CALLBACK_BASE_URL;
  if (e.REELFLOW_CALLBACK_PORT !== undefined) config.callbackPort = e.REELFLOW_CALLBACK_PORT;
  if (e.REELFLOW_METRICS_BIND !== undefined) config.metricsBind = e.REELFLOW_METRICS_BIND;
  if (e.REELFLOW_HEALTH_BIND !== undefined) config.healthBind = hostPortOf(e.REELFLOW_HEALTH_BIND);
  if (e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined) config.tracingEndpoint = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (e.REELFLOW_NOTIFY_URL !== undefined) config.webhookUrl = e.REELFLOW_NOTIFY_URL;
  if (e.REELFLOW_CALLBACK_SECRET !== undefined) {
    Object.defineProperty(config, 'callbackSecret', { value: e.REELFLOW_CALLBACK_SECRET, enumerable: false });
  }
  if (e.REELFLOW_ARCHIVE_TOKEN !== undefined) {
    config.archiveServer = {
      host: e.REELFLOW_ARCHIVE_HOST ?? DEFAULT_ARCHIVE_HOST,
      port: e.REELFLOW_ARCHIVE_PORT ?? DEFAULT_ARCHIVE_PORT,
    };
    Object.defineProperty(config, 'archiveToken', { value: e.REELFLOW_ARCHIVE_TOKEN, enumerable: false });
  }
  return config;
}

function schemaFor(cores: number) {
  return workerVariables()
    .superRefine(crossChecks)
    .transform((e) => toWorkerConfig(e, cores));
}

/** Reads and validates the worker's environment; throws a WorkerConfigError naming every bad variable. */
export function loadWorkerConfig(env: Env = process.env, opts: { cores?: number } = {}): WorkerConfig {
  const cores = opts.cores ?? os.availableParallelism();
  const schema = schemaFor(cores);
  const r = schema.safeParse(pickVariables(schema.in.shape, env));
  if (r.success) return r.data;
  throw new WorkerConfigError(problemsOf(r.error.issues));
}

/** One line for logs: everything but the secret. */
export function describeWorkerConfig(c: WorkerConfig): string {
  const parts = [
    `taskQueue=${c.taskQueue}`,
    `profiles=${c.profiles.join(',')}`,
    c.archiveStore
      ? `archiveStore=${objectUrl(c.archiveStore.bucket, c.archiveStore.prefix)}${c.archiveStore.sse ? ` (sse ${c.archiveStore.sse})` : ''}`
      : `archiveRoot=${c.archiveRoot}`,
    `archiveMaxBytes=${c.archiveMaxBytes}`,
    `getAssetRate=${c.getAssetRatePerSecond}/s`,
    `maxConcurrentActivities=${c.maxConcurrentActivities}`,
    `maxConcurrentWorkflowTasks=${c.maxConcurrentWorkflowTasks}`,
    `callbacks=${c.callbackBaseUrl ? `${c.callbackBaseUrl}/callbacks/…` : 'off (polling only)'}`,
  ];
  if (c.callbackPort !== undefined) parts.push(`receiver=${c.callbackHost}:${c.callbackPort}`);
  parts.push(`archiveServer=${c.archiveServer ? `${c.archiveServer.host}:${c.archiveServer.port}` : 'off'}`);
  if (c.tenants) parts.push(`tenants=${Object.keys(c.tenants.tenants).length}`);
  if (c.maxCachedWorkflows !== undefined) parts.push(`maxCachedWorkflows=${c.maxCachedWorkflows}`);
  parts.push(`isolateExecutionTimeout=${c.isolateExecutionTimeoutSeconds}s`);
  if (c.metricsBind) parts.push(`metrics=${c.metricsBind} (refresh ${c.metricsRefreshSeconds} s)`);
  parts.push(`logLevel=${c.logLevel}`);
  // The host only: a collector URL may carry credentials.
  if (c.tracingEndpoint) parts.push(`tracing=${new URL(c.tracingEndpoint).host}`);
  if (c.archiveAllowPrivate) parts.push('archiveAllowPrivate=yes (local testing only)');
  // The origin only: a webhook URL's path or query may hold a token.
  if (c.webhookUrl) parts.push(`notify=${new URL(c.webhookUrl).origin}/…`);
  const allowance = describeAllowance(c.webhookAllowPrivate);
  if (allowance !== 'none') parts.push(`notifyAllowPrivate=${allowance}`);
  return parts.join(' ');
}
