/**
 * Webhook signing secrets from the worker's environment, one per credential profile:
 * REELFLOW_PROFILE_<NAME>_WEBHOOK_SECRET (`whsec_<base64>`), next to the profile's vendor
 * credentials; and one per endpoint a definition names (options.notify.secret: "orders"):
 * REELFLOW_ENDPOINT_<ID>_WEBHOOK_SECRET, so that an author's own URL never collects events
 * signed with a secret other endpoints trust. A value may hold several secrets separated by
 * spaces while one is rotated: each delivery is signed with all of them. Problems name the
 * variable, never its value.
 *
 * Each secret is bound to the URLs beside it (src/webhooks/binding.ts): an endpoint's
 * REELFLOW_ENDPOINT_<ID>_WEBHOOK_URL is required with its secret; a profile's
 * REELFLOW_PROFILE_<NAME>_WEBHOOK_URL is optional (without it, the profile's secret signs for
 * the worker's REELFLOW_NOTIFY_URL only). docs/webhooks.md, the secrets.
 */
import type { ConfigProblem, Env } from '../config/env';
import { boundUrlProblem, boundUrlsOf, type WebhookKey } from './binding';
import { webhookSecretListProblem } from './signing';

const upper = (name: string) => name.toUpperCase().replace(/-/g, '_');

/** The variable holding a profile's webhook signing secret. */
export function webhookSecretVariable(profile: string): string {
  return `REELFLOW_PROFILE_${upper(profile)}_WEBHOOK_SECRET`;
}

/** The variable holding an endpoint's own signing secret (options.notify.secret). */
export function endpointSecretVariable(id: string): string {
  return `REELFLOW_ENDPOINT_${upper(id)}_WEBHOOK_SECRET`;
}

/** The variable holding the URLs (or prefixes) a profile's secret may sign for. */
export function webhookUrlVariable(profile: string): string {
  return `REELFLOW_PROFILE_${upper(profile)}_WEBHOOK_URL`;
}

/** The variable holding the URLs (or prefixes) an endpoint's secret may sign for. */
export function endpointUrlVariable(id: string): string {
  return `REELFLOW_ENDPOINT_${upper(id)}_WEBHOOK_URL`;
}

/** The key of a secret and the URL variable beside it; problems name the variable that is wrong. */
function keyOf(
  secretVariable: string,
  secrets: string,
  urlVariable: string,
  env: Env,
  urlRequired: boolean,
): WebhookKey | ConfigProblem {
  const problem = webhookSecretListProblem(secrets);
  if (problem) return { variable: secretVariable, message: problem };
  const urls = env[urlVariable]?.trim();
  if (!urls) {
    if (!urlRequired) return { secrets, urls: [], urlVariable };
    return { variable: urlVariable, message: `is required with ${secretVariable}: the URL or URL prefix it signs for` };
  }
  const urlProblem = boundUrlProblem(urls);
  if (urlProblem) return { variable: urlVariable, message: urlProblem };
  return { secrets, urls: boundUrlsOf(urls), urlVariable };
}

const isProblem = (k: WebhookKey | ConfigProblem): k is ConfigProblem => 'variable' in k;

const ENDPOINT_VARIABLE = /^REELFLOW_ENDPOINT_([A-Z0-9_]+)_WEBHOOK_SECRET$/;

/**
 * Every endpoint secret in the environment, keyed by the variable's id part (upper case,
 * `_` for `-`): look one up with endpointSecretKey.
 */
export function readEndpointSecrets(env: Env): { secrets: Map<string, WebhookKey>; problems: ConfigProblem[] } {
  const secrets = new Map<string, WebhookKey>();
  const problems: ConfigProblem[] = [];
  for (const [variable, raw] of Object.entries(env)) {
    const id = ENDPOINT_VARIABLE.exec(variable)?.[1];
    const value = raw?.trim();
    if (id === undefined || !value) continue;
    const key = keyOf(variable, value, `REELFLOW_ENDPOINT_${id}_WEBHOOK_URL`, env, true);
    if (isProblem(key)) problems.push(key);
    else secrets.set(id, key);
  }
  return { secrets, problems };
}

/** The key of an endpoint id in readEndpointSecrets' map. */
export function endpointSecretKey(id: string): string {
  return upper(id);
}

/**
 * The secrets of the served profiles. `required`: every profile must have one (a worker
 * default URL means every pipeline sends webhooks); otherwise a profile may go without.
 */
export function readWebhookSecrets(
  profiles: readonly string[],
  env: Env,
  required: boolean,
): { secrets: Map<string, WebhookKey>; problems: ConfigProblem[] } {
  const secrets = new Map<string, WebhookKey>();
  const problems: ConfigProblem[] = [];
  for (const profile of profiles) {
    const variable = webhookSecretVariable(profile);
    const value = env[variable]?.trim();
    if (!value) {
      if (required) problems.push({ variable, message: 'is required with REELFLOW_NOTIFY_URL (whsec_<base64>)' });
      continue;
    }
    const key = keyOf(variable, value, webhookUrlVariable(profile), env, false);
    if (isProblem(key)) problems.push(key);
    else secrets.set(profile, key);
  }
  return { secrets, problems };
}
