/**
 * Webhook signing secrets from the worker's environment, one per credential profile:
 * REELFLOW_PROFILE_<NAME>_WEBHOOK_SECRET (`whsec_<base64>`), next to the profile's vendor
 * credentials; and one per endpoint a definition names (options.notify.secret: "orders"):
 * REELFLOW_ENDPOINT_<ID>_WEBHOOK_SECRET, so that an author's own URL never collects events
 * signed with a secret other endpoints trust. A value may hold several secrets separated by
 * spaces while one is rotated: each delivery is signed with all of them. Problems name the
 * variable, never its value.
 */
import type { ConfigProblem, Env } from '../config/env';
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

const ENDPOINT_VARIABLE = /^REELFLOW_ENDPOINT_([A-Z0-9_]+)_WEBHOOK_SECRET$/;

/**
 * Every endpoint secret in the environment, keyed by the variable's id part (upper case,
 * `_` for `-`): look one up with endpointSecretKey.
 */
export function readEndpointSecrets(env: Env): { secrets: Map<string, string>; problems: ConfigProblem[] } {
  const secrets = new Map<string, string>();
  const problems: ConfigProblem[] = [];
  for (const [variable, raw] of Object.entries(env)) {
    const id = ENDPOINT_VARIABLE.exec(variable)?.[1];
    const value = raw?.trim();
    if (id === undefined || !value) continue;
    const problem = webhookSecretListProblem(value);
    if (problem) problems.push({ variable, message: problem });
    else secrets.set(id, value);
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
): { secrets: Map<string, string>; problems: ConfigProblem[] } {
  const secrets = new Map<string, string>();
  const problems: ConfigProblem[] = [];
  for (const profile of profiles) {
    const variable = webhookSecretVariable(profile);
    const value = env[variable]?.trim();
    if (!value) {
      if (required) problems.push({ variable, message: 'is required with REELFLOW_NOTIFY_URL (whsec_<base64>)' });
      continue;
    }
    const problem = webhookSecretListProblem(value);
    if (problem) problems.push({ variable, message: problem });
    else secrets.set(profile, value);
  }
  return { secrets, problems };
}
