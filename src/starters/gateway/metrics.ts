/**
 * The gateway's metrics, reelflow_gateway_* (docs/operations.md, "Metrics"), on its own
 * registry, served at GET /metrics in Prometheus' text format.
 */
import { Counter, Gauge, Registry } from 'prom-client';

export interface GatewayMetrics {
  registry: Registry;
  requests: Counter<'route' | 'method' | 'status'>;
  openStreams: Gauge<'kind'>;
  statusQueries: Counter;
  pollers: Gauge;
}

export function gatewayMetrics(pollers: () => number): GatewayMetrics {
  const registry = new Registry();
  return {
    registry,
    requests: new Counter({
      name: 'reelflow_gateway_requests_total',
      help: 'HTTP requests answered by the gateway, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    openStreams: new Gauge({
      name: 'reelflow_gateway_open_streams',
      help: 'Event streams open now, by kind (pipeline, tenant)',
      labelNames: ['kind'],
      registers: [registry],
    }),
    statusQueries: new Counter({
      name: 'reelflow_gateway_status_queries_total',
      help: 'Status queries the gateway sent to workers (one poller per watched pipeline)',
      registers: [registry],
    }),
    pollers: new Gauge({
      name: 'reelflow_gateway_pollers',
      help: 'Pipelines watched now, one status poller each',
      registers: [registry],
      collect() {
        this.set(pollers());
      },
    }),
  };
}
