/**
 * validateDefinition: the workflow's own check of its input, with the same validator as
 * `reelflow validate` and `start` (a pipeline started raw, e.g. by `temporal workflow
 * start`, is refused here before any vendor call). It runs as a local activity, so zod
 * never loads in workflow code; it is pure, so running it again is harmless.
 *
 * It also applies what only the worker knows, refused here before any paid work rather than
 * at the pipeline's end: whether it has a default webhook URL (REELFLOW_NOTIFY_URL) for a
 * definition without options.notify, whether the signing secret exists (the profile's, or
 * the endpoint's that options.notify.secret names), and whether a private webhook host is
 * one its REELFLOW_NOTIFY_ALLOW_PRIVATE lists. The default URL itself is not returned: its
 * query may hold a token, and this result is recorded in history. The delivery activity
 * resolves it.
 *
 * And, with the codec's strict mode on (REELFLOW_CODEC_STRICT=1), whether this worker takes
 * plaintext: a start whose input arrived unencrypted (the workflow says so: `plaintext`) is refused
 * as PlaintextPayloadRefused, and the result carries `codecStrict: true`, through history, so that
 * the pipeline drops plaintext signals and Updates deterministically. Results recorded before carry
 * no flag: those runs stay lenient on replay (docs/encryption.md, "Encrypted payloads").
 *
 * And the tenant policy (docs/tenants.md): which configured tenant the pipeline runs as, its
 * priority, limits, budget and prices, from the worker's REELFLOW_TENANTS_FILE. Asked to
 * (`askPlan`), it also reserves the pipeline's plan in its tenant's ledger, saving the pipeline
 * an activity of its own ("Budgets"); a failed ask is left to the pipeline, which asks again.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../failures';
import { DefinitionError, parseDefinition, type PipelineDefinition } from '../definition/definition';
import { WEBHOOK_DELIVERY_TIMEOUT } from '../definition/deadlines';
import { NO_PRIVATE, webhookHostRefusal } from '../webhooks/allowance';
import { keyRefusal } from '../webhooks/binding';
import { endpointSecretVariable, webhookSecretVariable } from '../webhooks/secrets';
import { parseHttpUrl } from '../vendor-api/schemas/common';
import { resolveTenantPolicy } from '../tenants/policy';
import type { TenantPolicy } from '../contract/tenancy';
import { PLAN_KEY, askOf, type CreateCount, type RunChain } from '../contract/ledger';
import { plannedCreates } from '../contract/plan';
import type { ActivityDeps } from './deps';
import { askLedger, type AskedLedger } from './ledger';

type WebhookDeps = Pick<
  ActivityDeps,
  'webhookSecretFor' | 'endpointSecretFor' | 'webhookDefaultUrl' | 'webhookAllowPrivate' | 'codecStrict' | 'tenants'
>;

/** validateDefinition's input: the raw definition, and whether the start input arrived in plaintext. */
export interface ValidateDefinitionInput {
  definition: unknown;
  /** Set by the workflow only when its input carries the strict codec's plaintext mark. */
  plaintext?: boolean;
  /** A new pipeline's chain: reserve its plan now, when its tenant has prices and no concurrency limit. */
  askPlan?: { chain: RunChain };
}

/** The plan asked for by the check (ask 1 of key `plan`), and the ledger asked. */
export type PlanAsk = AskedLedger & { creates: CreateCount[] };

/**
 * The parsed definition; `codecStrict` when the worker refuses plaintext, `tenantPolicy` when
 * tenants apply (docs/tenants.md). Both are absent in older results: those runs replay as they ran.
 */
export type ValidatedDefinition = PipelineDefinition & {
  codecStrict?: true;
  tenantPolicy?: TenantPolicy;
  planAsk?: PlanAsk;
};

/** The ask spend.ts would make first, made here; undefined when not wanted, or when it failed (the pipeline asks). */
async function askPlan(
  def: PipelineDefinition,
  policy: TenantPolicy | undefined,
  ask: ValidateDefinitionInput['askPlan'],
): Promise<PlanAsk | undefined> {
  // A tenant's slot comes before its reservation (tenant-slot.ts): the pipeline asks after it.
  if (!ask || !policy || policy.concurrency !== undefined) return undefined;
  const creates = plannedCreates(def);
  if (creates.length === 0) return undefined;
  const { client, info } = Context.current();
  const request = askOf(policy, ask.chain, PLAN_KEY, creates, 1, true);
  return askLedger(client, info.taskQueue, request, { soon: true }).then(
    (asked) => ({ ...asked, creates }),
    () => undefined,
  );
}

export const PLAINTEXT_START_REFUSED =
  'the pipeline was started with a plaintext input, and this worker refuses plaintext (REELFLOW_CODEC_STRICT=1): start it from a client with the payload codec (REELFLOW_CODEC_KEYS)';

/** The definition's options.notify. */
type WebhookOptions = NonNullable<PipelineDefinition['options']['notify']>;

/** An InvalidDefinition issue naming the field. */
const issue = (path: string, message: string) => new DefinitionError([{ path, message }]);

/** Why the worker cannot sign or send this definition's webhooks, as an issue naming the field. */
function webhookProblem(
  def: PipelineDefinition,
  notify: WebhookOptions,
  deps: WebhookDeps,
): DefinitionError | undefined {
  const unsigned = secretProblem(def, notify, deps);
  if (unsigned) return unsigned;
  const parts = notify.url === undefined ? undefined : parseHttpUrl(notify.url);
  const refusal = parts?.ok ? webhookHostRefusal(deps.webhookAllowPrivate ?? NO_PRIVATE, parts.host) : undefined;
  return refusal ? issue('options.notify.url', refusal) : undefined;
}

/**
 * Whether the worker has the secret that signs this definition's webhooks, and whether that
 * secret may sign for its URL (src/webhooks/binding.ts): a trusted secret named with another URL
 * would hand its author events the trusted endpoint verifies.
 */
function secretProblem(
  def: PipelineDefinition,
  notify: WebhookOptions,
  deps: WebhookDeps,
): DefinitionError | undefined {
  return notify.secret === undefined
    ? profileSecretProblem(def.options.profile, notify.url, deps)
    : endpointSecretProblem(notify.secret, notify.url ?? deps.webhookDefaultUrl, deps);
}

function endpointSecretProblem(id: string, url: string | undefined, deps: WebhookDeps): DefinitionError | undefined {
  const key = deps.endpointSecretFor?.(id);
  if (!key)
    return issue(
      'options.notify.secret',
      `the worker has no webhook signing secret "${id}" (${endpointSecretVariable(id)})`,
    );
  const refusal = url === undefined ? undefined : keyRefusal(key, url);
  return refusal ? issue('options.notify.secret', `webhook signing secret "${id}" ${refusal}`) : undefined;
}

/** `url` undefined: the worker's default, which the profile's secret always signs for. */
function profileSecretProblem(
  profile: string,
  url: string | undefined,
  deps: WebhookDeps,
): DefinitionError | undefined {
  const key = deps.webhookSecretFor?.(profile);
  if (!key)
    return issue(
      'options.notify.url',
      `the worker has no webhook signing secret for credential profile "${profile}" (${webhookSecretVariable(profile)})`,
    );
  const refusal = url === undefined ? undefined : keyRefusal(key, url);
  return refusal
    ? issue('options.notify.url', `credential profile "${profile}"'s webhook signing secret ${refusal}`)
    : undefined;
}

function withWorkerWebhook(def: PipelineDefinition, deps: WebhookDeps): PipelineDefinition {
  const options = def.options;
  // No URL: "the worker's default", resolved at send time.
  const notify: WebhookOptions | undefined =
    options.notify ?? (deps.webhookDefaultUrl ? { deliveryTimeout: WEBHOOK_DELIVERY_TIMEOUT } : undefined);
  if (!notify) return def;
  const problem = webhookProblem(def, notify, deps);
  if (problem) throw problem;
  return { ...def, options: { ...options, notify } };
}

export function createDefinitionActivities(deps: WebhookDeps = {}) {
  return {
    validateDefinition: async (input: ValidateDefinitionInput): Promise<ValidatedDefinition> => {
      if (deps.codecStrict && input.plaintext)
        throw ApplicationFailure.nonRetryable(PLAINTEXT_START_REFUSED, FailureType.PlaintextPayloadRefused);
      try {
        const def = withWorkerWebhook(parseDefinition(input.definition), deps);
        const tenantPolicy = resolveTenantPolicy(def, deps.tenants);
        const planAsk = await askPlan(def, tenantPolicy, input.askPlan);
        return {
          ...def,
          ...(deps.codecStrict ? { codecStrict: true as const } : {}),
          ...(tenantPolicy ? { tenantPolicy } : {}),
          ...(planAsk ? { planAsk } : {}),
        };
      } catch (err) {
        if (err instanceof DefinitionError)
          throw ApplicationFailure.nonRetryable(err.message, FailureType.InvalidDefinition, err.issues);
        throw err;
      }
    },
  };
}
