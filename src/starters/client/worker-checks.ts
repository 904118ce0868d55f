/**
 * What the worker will refuse of a definition, said before a workflow exists
 * (docs/cli.md, "What the worker checks"). Where the caller's environment holds the worker's
 * variable, the worker's own check runs here on it: REELFLOW_TENANTS_FILE through the tenant
 * policy (docs/tenants.md), REELFLOW_NOTIFY_ALLOW_PRIVATE through the webhook host check
 * (docs/webhooks.md). Where it does not, a note says what the worker will check. Notes name
 * variables, never their values.
 */
import type { DefinitionIssue, PipelineDefinition } from '../../definition/definition';
import { DefinitionError } from '../../definition/definition';
import { nonPublicHostReason } from '../../definition/hosts';
import { parseHttpUrl } from '../../vendor-api/schemas/common';
import { loadTenantsConfig } from '../../tenants/config';
import { resolveTenantPolicy } from '../../tenants/policy';
import { parseWebhookAllowance, webhookHostRefusal } from '../../webhooks/allowance';
import { endpointSecretVariable, webhookSecretVariable } from '../../webhooks/secrets';

export interface WorkerVerdict {
  /** What the worker would refuse, each naming its field: nothing should start. */
  issues: DefinitionIssue[];
  /** What only the worker can judge, in words (and what it decided, e.g. the default tenant). */
  notes: string[];
}

type Env = Readonly<Record<string, string | undefined>>;

const issuesOf = (run: () => void): DefinitionIssue[] => {
  try {
    run();
    return [];
  } catch (err) {
    if (err instanceof DefinitionError) return err.issues;
    throw err;
  }
};

/** The tenant policy, run on the caller's REELFLOW_TENANTS_FILE; else what the worker will check. */
function tenantVerdict(def: PipelineDefinition, env: Env): WorkerVerdict {
  const asked = def.options.tenant;
  const file = env.REELFLOW_TENANTS_FILE?.trim();
  if (!file) {
    const note = `options.tenant "${asked}": the worker checks it against its REELFLOW_TENANTS_FILE (an unknown tenant is refused, or runs as the file's defaultTenant)`;
    return { issues: [], notes: asked === undefined ? [] : [note] };
  }
  const config = loadTenantsConfig(file);
  const issues = issuesOf(() => resolveTenantPolicy(def, config));
  const fallback = asked !== undefined && !Object.hasOwn(config.tenants, asked) ? config.defaultTenant : undefined;
  const notes =
    issues.length === 0 && fallback !== undefined
      ? [`options.tenant "${asked}" is not in REELFLOW_TENANTS_FILE: it runs as the default tenant "${fallback}"`]
      : [];
  return { issues, notes };
}

/** The webhook host check on the caller's REELFLOW_NOTIFY_ALLOW_PRIVATE; else what the worker will check. */
function webhookVerdict(def: PipelineDefinition, env: Env): WorkerVerdict {
  const notify = def.options.notify;
  const parts = notify?.url === undefined ? undefined : parseHttpUrl(notify.url);
  if (!notify || !parts?.ok) return { issues: [], notes: [] };
  const secret =
    notify.secret !== undefined ? endpointSecretVariable(notify.secret) : webhookSecretVariable(def.options.profile);
  const notes = [`options.notify: the worker signs with ${secret}, and refuses the pipeline without it`];
  const allowance = env.REELFLOW_NOTIFY_ALLOW_PRIVATE;
  if (allowance === undefined) {
    const reason = nonPublicHostReason(parts.host);
    if (reason)
      notes.push(
        `options.notify.url: ${reason}: the worker refuses it unless its REELFLOW_NOTIFY_ALLOW_PRIVATE lists it`,
      );
    return { issues: [], notes };
  }
  let refusal: string | undefined;
  try {
    refusal = webhookHostRefusal(parseWebhookAllowance(allowance), parts.host);
  } catch (err) {
    throw new Error(`REELFLOW_NOTIFY_ALLOW_PRIVATE: ${(err as Error).message}`);
  }
  return { issues: refusal ? [{ path: 'options.notify.url', message: refusal }] : [], notes };
}

/** What the worker will refuse of `def`, judged on `env` where it holds the worker's variables. */
export function workerVerdict(def: PipelineDefinition, env: Env): WorkerVerdict {
  const parts = [tenantVerdict(def, env), webhookVerdict(def, env)];
  return { issues: parts.flatMap((p) => p.issues), notes: parts.flatMap((p) => p.notes) };
}
