/**
 * Webhook signing secrets, one per credential profile, from the worker's environment:
 * REELFLOW_PROFILE_<NAME>_WEBHOOK_SECRET (`whsec_<base64>`), next to the profile's vendor
 * credentials. Problems name the variable, never its value.
 */
import type { ConfigProblem, Env } from '../callbacks/config';
import { webhookSecretProblem } from './signing';

/** The variable holding a profile's webhook signing secret. */
export function webhookSecretVariable(profile: string): string {
  return `REELFLOW_PROFILE_${profile.toUpperCase().replace(/-/g, '_')}_WEBHOOK_SECRET`;
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
    const problem = webhookSecretProblem(value);
    if (problem) problems.push({ variable, message: problem });
    else secrets.set(profile, value);
  }
  return { secrets, problems };
}
