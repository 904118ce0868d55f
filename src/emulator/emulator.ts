/**
 * One running emulator: builds its context, listens, drives the scheduler tick, and
 * implements the controls shared by the programmatic API and /__emulator/.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { advanceAssets, seedSystemGroups } from './assets';
import { Principals } from './auth';
import { CallbackDispatcher } from './callbacks';
import { EmulatorClock } from './clock';
import type { EmulatorContext } from './context';
import { newCounters } from './counters';
import { advanceErases } from './erase';
import { FaultInjector, parseFaultConfig } from './faults';
import { advanceGenerations, cancelGeneration } from './generation';
import type { Reply } from './http';
import { snapshot, type Controls, type InspectionSnapshot } from './inspection';
import { MediaLibrary } from './media';
import type { ResolvedOptions } from './options';
import { RequestLog, type RequestRecord } from './request-log';
import { advanceReviews, cancelReview } from './review';
import { createRequestListener } from './server';
import { UrlSigner } from './signing';
import { Store } from './store';
import { RealTimers } from './timers';

export class Emulator implements Controls {
  readonly ctx: EmulatorContext;
  private readonly log: RequestLog;
  private readonly server: Server;
  private ticker?: NodeJS.Timeout;

  constructor(private readonly opts: ResolvedOptions) {
    const clock = new EmulatorClock(opts.clock);
    const timers = new RealTimers();
    // Late-bound so that reset() can swap the counters object the injector writes to.
    const counters = () => this.ctx.counters;
    const faults = new FaultInjector(opts.seed, opts.faults, counters);
    this.ctx = {
      dialect: opts.dialect,
      pathWord: opts.pathWord,
      clock,
      timings: opts.timings,
      limits: opts.limits,
      store: new Store(),
      counters: newCounters(),
      faults,
      callbacks: new CallbackDispatcher({ clock, faults, counters, timers, timings: opts.timings }),
      signer: new UrlSigner(),
      media: new MediaLibrary(opts.mediaDir),
      principals: new Principals(opts.apiKeys, opts.accessTokens),
      timers,
      baseUrl: '',
      selfHosts: new Set(),
      extraRoutes: opts.routes,
    };
    this.log = new RequestLog(opts.limits.requestLogSize);
    seedSystemGroups(this.ctx);
    const access = { host: opts.host, ...(opts.controlToken !== undefined ? { token: opts.controlToken } : {}) };
    this.server = createServer(
      createRequestListener({ ctx: this.ctx, log: this.log, controls: this, tick: () => this.tick(), access }),
    );
  }

  async listen(): Promise<{ url: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const { port } = this.server.address() as AddressInfo;
    const host = this.opts.host;
    // A wildcard bind is reached through loopback; IPv6 literals need brackets in URLs.
    const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    this.ctx.baseUrl = this.opts.publicUrl ?? `http://${urlHost}:${port}`;
    for (const h of [urlHost, '127.0.0.1', 'localhost', '[::1]']) this.ctx.selfHosts.add(`${h}:${port}`);
    if (this.opts.publicUrl) this.ctx.selfHosts.add(new URL(this.opts.publicUrl).host);
    this.ticker = setInterval(() => this.tick(), this.opts.timings.tickMs);
    this.ticker.unref();
    return { url: this.ctx.baseUrl, port };
  }

  /** Moves every resource whose next state is due; sends the callbacks that go with it. */
  tick(): void {
    const now = this.ctx.clock.now();
    advanceGenerations(this.ctx, now);
    advanceErases(this.ctx, now);
    advanceAssets(this.ctx, now);
    advanceReviews(this.ctx, now);
  }

  snapshot(): InspectionSnapshot {
    this.tick();
    return snapshot(this.ctx, this.log.list());
  }

  requests(sinceSeq = 0): RequestRecord[] {
    return this.log.list(sinceSeq);
  }

  /** A FaultConfig, or raw JSON from the control API: parsed (and refused) here. */
  setFaults(config: unknown): void {
    this.ctx.faults.set(parseFaultConfig(config));
  }

  advanceClock(ms: number): void {
    this.ctx.clock.advance(ms);
    this.tick();
  }

  /** Back to the state just after start: no resources, logs or counters; initial faults; real time. */
  reset(): void {
    this.ctx.timers.cancelAll();
    this.ctx.callbacks.reset();
    this.ctx.store = new Store();
    this.ctx.counters = newCounters();
    this.ctx.faults.set(this.opts.faults);
    this.ctx.clock.reset();
    this.log.clear();
    seedSystemGroups(this.ctx);
  }

  cancelReview(taskId: string): Reply {
    this.tick();
    return cancelReview(this.ctx, taskId);
  }

  cancelGeneration(id: string): Reply {
    this.tick();
    return cancelGeneration(this.ctx, id);
  }

  async close(): Promise<void> {
    if (this.ticker) clearInterval(this.ticker);
    this.ctx.callbacks.close();
    this.ctx.timers.cancelAll();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections(); // keep-alive sockets would hold close() open
    });
  }
}
