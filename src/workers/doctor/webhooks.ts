/**
 * The webhook endpoint table (the secrets of docs/webhooks.md): the signing secrets of the
 * profiles and of each endpoint a definition may name, read as the worker reads them at
 * start, where a bad one stops it. A ✓ names the endpoints and the private targets allowed,
 * never a secret.
 */
import type { Env } from '../../config/env';
import { describeAllowance } from '../../webhooks/allowance';
import { readEndpointSecrets, readWebhookSecrets } from '../../webhooks/secrets';
import type { WorkerConfig } from '../config';
import { fail, pass, type CheckResult } from './check';

const ID = 'webhooks';
const TITLE = 'webhook endpoints';

/** Endpoint ids from their variables' names, lower case (a definition's `-` is `_` there). */
const endpointNames = (keys: Iterable<string>) => [...keys].map((k) => k.toLowerCase());

export function webhookEndpointsCheck(config: WorkerConfig, env: Env): CheckResult {
  const profiles = readWebhookSecrets(config.profiles, env, config.webhookUrl !== undefined);
  const endpoints = readEndpointSecrets(env);
  const problems = [...profiles.problems, ...endpoints.problems];
  if (problems.length > 0)
    return fail(
      ID,
      TITLE,
      problems.map((p) => `${p.variable} ${p.message}`).join('; '),
      'fix each variable named: a secret is whsec_<base64 of 16+ random bytes>, several separated by spaces while rotating; a _WEBHOOK_URL names the URLs or URL prefixes its secret signs for (docs/webhooks.md)',
    );
  const named = endpointNames(endpoints.secrets.keys());
  const parts = [
    config.webhookUrl ? `default URL ${new URL(config.webhookUrl).origin}` : 'no default URL',
    `${named.length} endpoint(s)${named.length ? ` (${named.join(', ')})` : ''}`,
    `profile secrets for ${[...profiles.secrets.keys()].join(', ') || 'none'}`,
    `private targets: ${describeAllowance(config.webhookAllowPrivate)}`,
  ];
  return pass(ID, TITLE, parts.join('; '));
}
