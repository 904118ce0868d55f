/**
 * Outgoing callbacks: fire-and-forget POSTs that never hold up request handling.
 * Faults can drop, delay or duplicate each one; every attempt and its outcome is kept
 * for inspection. One attempt per callback by default (the spec shows no retry policy), so a
 * client must keep polling — callbacks are hints. `callbackRetries` (./timings.ts) makes
 * further attempts at one that got no answer, 408, 429 or 5xx, with a doubling pause.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { iso, type EmulatorClock } from './clock';
import type { Counters } from './counters';
import type { CallbackKey, FaultInjector } from './faults';
import { hex } from './ids';
import type { RealTimers } from './timers';
import type { Timings } from './timings';

export interface CallbackDelivery {
  /** Shared by a callback and its duplicate, so a receiver could dedupe on it. */
  callbackId: string;
  key: CallbackKey;
  resourceId: string;
  /** Resource state the body describes. */
  state: string;
  url: string;
  outcome: 'pending' | 'delivered' | 'failed' | 'dropped';
  duplicate: boolean;
  delayedMs?: number;
  httpStatus?: number;
  /** Milliseconds from sending the first POST to the last one's answer (or failure). */
  answeredInMs?: number;
  /** POSTs sent: 1, plus each retry. */
  attempts?: number;
  error?: string;
  /** Emulator time the callback was triggered. */
  at: string;
}

const MAX_KEPT = 5_000;

export class CallbackDispatcher {
  private deliveries: CallbackDelivery[] = [];
  private inFlight = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly deps: {
      clock: EmulatorClock;
      faults: FaultInjector;
      counters: () => Counters;
      timers: RealTimers;
      timings: Pick<Timings, 'callbackTimeoutMs' | 'callbackRetries' | 'callbackRetryBaseMs'>;
    },
  ) {}

  list(): CallbackDelivery[] {
    return this.deliveries.map((d) => ({ ...d }));
  }

  /** Queues a POST of `body` to `url`; returns at once. */
  send(key: CallbackKey, resourceId: string, state: string, url: string, body: unknown): void {
    if (this.closed) return;
    const base = {
      callbackId: hex(8),
      key,
      resourceId,
      state,
      url,
      at: iso(this.deps.clock.now()),
    };
    const counters = this.deps.counters().callbacks;
    if (this.deps.faults.roll(key, 'callbackDrop')) {
      counters.dropped += 1;
      this.keep({ ...base, outcome: 'dropped', duplicate: false });
      return;
    }
    const delayMs = this.deps.faults.roll(key, 'callbackDelay')?.ms ?? 0;
    if (delayMs > 0) counters.delayed += 1;
    const copies = this.deps.faults.roll(key, 'callbackDuplicate') ? 2 : 1;
    if (copies === 2) counters.duplicated += 1;
    const payload = JSON.stringify(body);
    for (let i = 0; i < copies; i++) {
      const delivery: CallbackDelivery = {
        ...base,
        outcome: 'pending',
        duplicate: i > 0,
        ...(delayMs > 0 ? { delayedMs: delayMs } : {}),
      };
      this.keep(delivery);
      void this.deliver(delivery, payload, delayMs);
    }
  }

  private async deliver(delivery: CallbackDelivery, payload: string, delayMs: number): Promise<void> {
    if (delayMs > 0 && !(await this.deps.timers.sleep(delayMs))) return; // cancelled by close/reset
    const counters = this.deps.counters().callbacks;
    const { callbackRetries, callbackRetryBaseMs } = this.deps.timings;
    const sentAt = performance.now();
    for (let attempt = 0; ; attempt++) {
      delivery.attempts = attempt + 1;
      counters.sent += 1;
      await this.attempt(delivery, payload);
      delivery.answeredInMs = Math.round(performance.now() - sentAt);
      if (attempt >= callbackRetries || !worthRetrying(delivery)) break;
      delivery.outcome = 'pending'; // retries remain
      const pause = Math.min(30_000, callbackRetryBaseMs * 2 ** attempt);
      if (!(await this.deps.timers.sleep(pause))) return; // cancelled by close/reset
    }
    if (delivery.outcome === 'delivered') counters.delivered += 1;
    else counters.failed += 1;
    if (delivery.outcome === 'delivered' && delivery.answeredInMs <= 1_000) counters.deliveredWithin1s += 1;
  }

  /** One POST; its outcome on `delivery`. */
  private async attempt(delivery: CallbackDelivery, payload: string): Promise<void> {
    const controller = new AbortController();
    this.inFlight.add(controller);
    delete delivery.error;
    delete delivery.httpStatus;
    try {
      delivery.httpStatus = await postJson(delivery, payload, controller.signal, this.deps.timings.callbackTimeoutMs);
      delivery.outcome = delivery.httpStatus >= 200 && delivery.httpStatus < 300 ? 'delivered' : 'failed';
    } catch (err) {
      delivery.outcome = 'failed';
      delivery.error = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    } finally {
      this.inFlight.delete(controller);
    }
  }

  private keep(delivery: CallbackDelivery): void {
    this.deliveries.push(delivery);
    if (this.deliveries.length > MAX_KEPT) this.deliveries.splice(0, this.deliveries.length - MAX_KEPT);
  }

  /** Stops for good: nothing is sent after the emulator closed. */
  close(): void {
    this.closed = true;
    this.reset();
  }

  /** Aborts in-flight POSTs and forgets the log (delayed ones are cancelled by RealTimers). */
  reset(): void {
    for (const controller of this.inFlight) controller.abort(new Error('emulator reset'));
    this.inFlight.clear();
    this.deliveries = [];
  }
}

/** No answer (refused, reset, timed out), or one that says "later": 408, 429, 5xx. */
function worthRetrying(d: CallbackDelivery): boolean {
  if (d.outcome === 'delivered') return false;
  const s = d.httpStatus;
  return s === undefined || s === 408 || s === 429 || s >= 500;
}

/**
 * One POST with node:http(s) rather than fetch: fetch refuses some ports outright
 * ("bad port"), and a local callback receiver may well listen on one.
 */
function postJson(d: CallbackDelivery, payload: string, signal: AbortSignal, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const send = d.url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(
      d.url,
      {
        method: 'POST',
        signal,
        timeout: timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'user-agent': 'reelflow-vendor-emulator',
          'x-emulator-callback-id': d.callbackId,
        },
      },
      (res) => {
        res.resume(); // the answer's body does not matter, only its status
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('callback timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(payload);
  });
}
