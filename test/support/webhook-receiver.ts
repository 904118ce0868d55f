/**
 * A user's webhook endpoint, as the README tells users to write one: it verifies every
 * delivery with verifyWebhook and acts on each webhook-id once. It answers 500 to the
 * first delivery of each id (so every event is retried), and its clock can be moved on
 * (a replayed delivery arrives late).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '../../src/webhooks/signing';
import type { WebhookEvent } from '../../src/contract/messages';
import { startServer } from './http-server';

export interface RawDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver answered. */
  status: number;
  /** The verification failure's code, when refused. */
  refused?: string;
}

export async function startWebhookReceiver(secret: string, host = '127.0.0.1') {
  const raw: RawDelivery[] = [];
  /** Events acted on, by webhook-id: each at most once. */
  const accepted = new Map<string, WebhookEvent>();
  const seen = new Set<string>();
  let clockOffsetMs = 0;
  const server = await startServer(
    ({ headers, body }, res) => {
      const record: RawDelivery = { headers, body, status: 200 };
      raw.push(record);
      try {
        const event = verifyWebhook<WebhookEvent>(secret, headers, body, { now: Date.now() + clockOffsetMs });
        const id = String(headers['webhook-id']);
        if (!seen.has(id)) {
          seen.add(id);
          record.status = 500; // the first delivery of every event fails: the retry must carry the same id
        } else if (!accepted.has(id)) {
          accepted.set(id, event);
        }
      } catch (err) {
        if (!(err instanceof WebhookVerificationError)) throw err;
        record.status = 400;
        record.refused = err.code;
      }
      res.writeHead(record.status).end();
    },
    { host },
  );
  const url = `${server.url}/hooks/reelflow?token=abc`;
  return {
    url,
    raw,
    accepted,
    /** Deliveries that carried this webhook-id. */
    deliveriesOf: (id: string) => raw.filter((r) => r.headers['webhook-id'] === id),
    /** Moves the receiver's clock (ms) for the next requests. */
    setClockOffset(ms: number) {
      clockOffsetMs = ms;
    },
    close: server.close,
  };
}
