/**
 * deliverWebhook: one signed POST of a pipeline event (Standard Webhooks headers). A 2xx
 * answer delivers it; anything else fails the attempt and Temporal retries it (the delivery
 * workflow bounds the total time). The URL is the input's, or the worker's default
 * (REELFLOW_NOTIFY_URL) when the input names none: that one never enters history. The
 * target must be public, judged again at send time on every address its name resolves to
 * (DNS rebinding), unless the worker's REELFLOW_NOTIFY_ALLOW_PRIVATE lists it: a definition
 * cannot open the worker's network (the input's old allowPrivateHosts is ignored). One POST,
 * answer body included, has an overall deadline. Errors show the URL's origin only (a query
 * string may hold a token) and never the secret.
 */
import type { LookupFunction } from 'node:net';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { request } from 'undici';
import { FailureType } from '../failures';
import { NO_PRIVATE, type WebhookAllowance } from '../webhooks/allowance';
import { keyRefusal, type WebhookKey } from '../webhooks/binding';
import { endpointSecretVariable, webhookSecretVariable } from '../webhooks/secrets';
import { webhookHeaders } from '../webhooks/signing';
import type { WebhookInput, WebhookResult } from '../contract/messages';
import { addressRefusalIn, createAddressGuard, type AddressGuard } from './public-address';

/** One POST, answer body included, at most this long unless the worker says otherwise. */
export const DEFAULT_WEBHOOK_DEADLINE_MS = 30_000;

export interface WebhookActivitiesOptions {
  /** The `whsec_…` secret(s) of a credential profile and the URLs they sign for, if the worker has them. */
  secretFor?: (profile: string) => WebhookKey | undefined;
  /** The secret(s) of an endpoint that options.notify.secret names, and its URLs. */
  endpointSecretFor?: (id: string) => WebhookKey | undefined;
  /** The worker's default webhook URL (REELFLOW_NOTIFY_URL). */
  defaultUrl?: string;
  /** Private targets the worker allows (REELFLOW_NOTIFY_ALLOW_PRIVATE); default none. */
  allowPrivate?: WebhookAllowance;
  /** Time to connect, and to the answer's headers. Default 10 s and 15 s. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Overall deadline of one POST, body included (REELFLOW_NOTIFY_TIMEOUT). Default 30 s. */
  deadlineMs?: number;
  /** DNS seam for tests; default node:dns lookup. */
  lookup?: LookupFunction;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '<unparseable URL>';
  }
}

function refused(message: string, type: FailureType = FailureType.WebhookAddressRefused): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true });
}

/**
 * The secret(s) that sign this delivery to `url`: the endpoint's own, else the profile's; each
 * only for the URLs the worker binds it to (src/webhooks/binding.ts), checked again here because
 * an input may not have come through the definition check.
 */
function secretsOf(input: WebhookInput, url: string, opts: WebhookActivitiesOptions): string {
  const key = input.secret === undefined ? opts.secretFor?.(input.profile) : opts.endpointSecretFor?.(input.secret);
  if (!key) {
    const where =
      input.secret === undefined
        ? `credential profile "${input.profile}": set ${webhookSecretVariable(input.profile)}`
        : `endpoint "${input.secret}": set ${endpointSecretVariable(input.secret)}`;
    throw refused(`no webhook signing secret for ${where} on the worker`, FailureType.MissingCredentialError);
  }
  // A profile's secret always signs for the worker's default URL (no URL in the input).
  const refusal = input.secret === undefined && input.url === undefined ? undefined : keyRefusal(key, url);
  if (!refusal) return key.secrets;
  const which =
    input.secret === undefined
      ? `options.notify.url: credential profile "${input.profile}"'s webhook signing secret`
      : `options.notify.secret: webhook signing secret "${input.secret}"`;
  throw refused(`webhook ${originOf(url)}: ${which} ${refusal}`, FailureType.WebhookEventRefused);
}

/** Guards by what the allowance lets through: a listed host name may resolve anywhere. */
function guardsOf(opts: WebhookActivitiesOptions) {
  const allowance = opts.allowPrivate ?? NO_PRIVATE;
  const make = (allowPrivate: boolean | readonly string[]) =>
    createAddressGuard({
      allowPrivate,
      maxRedirections: 0,
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    });
  const listed = make(allowance.all || allowance.cidrs);
  const open = allowance.all || allowance.hosts.length === 0 ? listed : make(true);
  return (host: string): AddressGuard => (allowance.hosts.includes(host.toLowerCase()) ? open : listed);
}

/**
 * Reads the answer's body (up to 64 KiB, then drops the connection) so that the deadline
 * covers it: undici's dump() resolves quietly when the signal aborts it.
 */
async function drain(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<void> {
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > 64 * 1024) {
      body.destroy();
      return;
    }
  }
}

export function createWebhookActivities(opts: WebhookActivitiesOptions = {}) {
  const guardFor = guardsOf(opts);
  const deadlineMs = opts.deadlineMs ?? DEFAULT_WEBHOOK_DEADLINE_MS;

  return {
    deliverWebhook: async (input: WebhookInput): Promise<WebhookResult> => {
      const url = input.url ?? opts.defaultUrl;
      if (url === undefined) throw refused('no webhook URL: the worker has no REELFLOW_NOTIFY_URL');
      const secrets = secretsOf(input, url, opts);
      const origin = originOf(url);
      const host = new URL(url).hostname;
      const guard = guardFor(host.replace(/^\[|\]$/g, ''));
      const literal = guard.refusalOf(host);
      if (literal) throw refused(`webhook ${origin}: ${literal.message} (not in REELFLOW_NOTIFY_ALLOW_PRIVATE)`);
      const body = JSON.stringify(input.event);
      const headers = webhookHeaders(secrets, input.webhookId, Math.floor(Date.now() / 1000), body);
      const deadline = AbortSignal.timeout(deadlineMs);
      let status: number;
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'reelflow-webhooks', ...headers },
          body,
          dispatcher: guard.dispatcher(),
          headersTimeout: opts.headersTimeoutMs ?? 15_000,
          bodyTimeout: opts.headersTimeoutMs ?? 15_000,
          // The deadline covers the answer's body too: an endpoint that trickles it is cut off.
          signal: AbortSignal.any([Context.current().cancellationSignal, deadline]),
        });
        status = res.statusCode;
        await drain(res.body);
      } catch (err) {
        const refusal = addressRefusalIn(err);
        if (refusal) throw refused(`webhook ${origin}: ${refusal.message} (not in REELFLOW_NOTIFY_ALLOW_PRIVATE)`);
        if (deadline.aborted)
          throw ApplicationFailure.retryable(
            `webhook ${origin} took longer than ${deadlineMs / 1000} s (REELFLOW_NOTIFY_TIMEOUT)`,
            FailureType.WebhookNetworkError,
          );
        const code = (err as { code?: string }).code ?? (err instanceof Error ? err.name : 'error');
        throw ApplicationFailure.retryable(`webhook ${origin} unreachable (${code})`, FailureType.WebhookNetworkError);
      }
      if (status < 200 || status > 299) {
        throw ApplicationFailure.retryable(`webhook ${origin} answered ${status}`, FailureType.WebhookHttpError);
      }
      return { status, attempt: Context.current().info.attempt };
    },
  };
}
