/**
 * `reelflow serve`'s listener: the gateway app on Node's http server (@hono/node-server's
 * request listener), with the project's listener settings (src/config/http-server.ts).
 */
import { getRequestListener } from '@hono/node-server';
import { localUrl, startHttpServer } from '../../config/http-server';
import { createGateway, type Gateway, type GatewayOptions } from './app';

export interface RunningGateway extends Gateway {
  url: string;
  port: number;
  /** Stops listening and every poller. */
  stop(): Promise<void>;
}

export async function startGateway(opts: GatewayOptions & { host: string; port: number }): Promise<RunningGateway> {
  const gateway = createGateway(opts);
  const listener = await startHttpServer(getRequestListener(gateway.app.fetch), {
    host: opts.host,
    port: opts.port,
    // Event streams are long: no request deadline; headers still have one.
    timeouts: { headersMs: 10_000, requestMs: 0, keepAliveMs: 5_000 },
    closeGraceMs: 1_000,
  });
  return {
    ...gateway,
    port: listener.port,
    url: localUrl(opts.host, listener.port),
    async stop() {
      gateway.close();
      await listener.close();
    },
  };
}
