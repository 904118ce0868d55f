/**
 * deliverWebhook: one signed POST of a pipeline event (Standard Webhooks headers). A 2xx
 * answer delivers it; anything else fails the attempt and Temporal retries it (the delivery
 * workflow bounds the total time). The target must be public, judged again at send time on
 * every address its name resolves to (DNS rebinding), unless the definition opted in (or it
 * is the worker's own default URL and the worker allows it). Errors show the URL's origin
 * only (a query string may hold a token) and never the secret.
 */
import type { LookupFunction } from 'node:net';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { request } from 'undici';
import { FailureType } from '../failures';
import { webhookSecretVariable } from '../webhooks/secrets';
import { webhookHeaders } from '../webhooks/signing';
import type { NotifyInput, NotifyResult } from '../workflows/messages';
import { addressRefusalIn, createAddressGuard } from './public-address';

export interface WebhookActivitiesOptions {
  /** The `whsec_…` secret of a credential profile, if the worker has one. */
  secretFor?: (profile: string) => string | undefined;
  /** The worker's default webhook URL (REELFLOW_NOTIFY_URL), and whether it may be a private address. */
  defaultUrl?: string;
  defaultAllowPrivate?: boolean;
  /** Time to connect, and to the answer's headers. Default 10 s and 15 s. */
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
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

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: FailureType.WebhookAddressRefused, nonRetryable: true });
}

function missingSecret(profile: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `no webhook signing secret for credential profile "${profile}": set ${webhookSecretVariable(profile)} on the worker`,
    type: FailureType.MissingCredentialError,
    nonRetryable: true,
  });
}

export function createWebhookActivities(opts: WebhookActivitiesOptions = {}) {
  const guardOf = (allowPrivate: boolean) =>
    createAddressGuard({
      allowPrivate,
      maxRedirections: 0,
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
    });
  const guards = { strict: guardOf(false), open: guardOf(true) };

  return {
    deliverWebhook: async (input: NotifyInput): Promise<NotifyResult> => {
      const secret = opts.secretFor?.(input.profile);
      if (!secret) throw missingSecret(input.profile);
      const ownDefault = opts.defaultAllowPrivate === true && input.url === opts.defaultUrl;
      const guard = input.allowPrivateHosts || ownDefault ? guards.open : guards.strict;
      const origin = originOf(input.url);
      const literal = guard.refusalOf(new URL(input.url).hostname);
      if (literal) throw refused(`webhook ${origin}: ${literal.message}`);
      const body = JSON.stringify(input.event);
      const headers = webhookHeaders(secret, input.webhookId, Math.floor(Date.now() / 1000), body);
      let status: number;
      try {
        const res = await request(input.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'reelflow-webhooks', ...headers },
          body,
          dispatcher: guard.dispatcher(),
          headersTimeout: opts.headersTimeoutMs ?? 15_000,
          bodyTimeout: opts.headersTimeoutMs ?? 15_000,
          signal: Context.current().cancellationSignal,
        });
        status = res.statusCode;
        await res.body.dump();
      } catch (err) {
        const refusal = addressRefusalIn(err);
        if (refusal) throw refused(`webhook ${origin}: ${refusal.message}`);
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
