/**
 * OpenTelemetry tracing, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: a tracer
 * provider with a batching OTLP/HTTP exporter (JSON), registered globally with an
 * AsyncLocalStorage context manager, so the SDK's interceptors (client, activity, the
 * workflow spans sent out through a sink) and the vendor HTTP spans (src/vendor-api/spans.ts)
 * all land in it, in one trace per pipeline.
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT          base URL of the collector, e.g. http://127.0.0.1:4318
 *                                        (spans go to <base>/v1/traces)
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT   full traces URL, used as is when set
 *   OTEL_SERVICE_NAME                    default reelflow-worker / reelflow-cli
 *   OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*  read by the exporter and the batch processor
 *
 * The SDK packages load only when tracing is on: off, nothing of them runs.
 */
import type { ClientOptions } from '@temporalio/client';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

export const TRACING_VARIABLE = 'OTEL_EXPORTER_OTLP_ENDPOINT';
const TRACES_VARIABLE = 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';

type Env = Record<string, string | undefined>;

export interface Tracing {
  /** Where spans are sent. */
  url: string;
  resource: Resource;
  /** Receives the workflow spans the SDK's sink carries out of the sandbox. */
  spanProcessor: SpanProcessor;
  /** Exports what is pending and stops; never rejects (a collector that is down loses spans, nothing else). */
  shutdown(): Promise<void>;
}

export function tracingEnabled(env: Env): boolean {
  return (env[TRACING_VARIABLE] ?? '').trim() !== '';
}

function httpUrl(variable: string, value: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol)) {
    // The value is not echoed: a collector URL may carry credentials.
    throw new Error(`${variable} must be an http(s) URL, e.g. http://127.0.0.1:4318`);
  }
  return url;
}

/** The traces URL the environment names, or undefined when tracing is off; a bad value throws naming the variable. */
export function otlpTracesUrl(env: Env): string | undefined {
  if (!tracingEnabled(env)) return undefined;
  const base = httpUrl(TRACING_VARIABLE, env[TRACING_VARIABLE]!.trim());
  const full = (env[TRACES_VARIABLE] ?? '').trim();
  if (full) return httpUrl(TRACES_VARIABLE, full).href;
  return `${base.href.replace(/\/+$/, '')}/v1/traces`;
}

/** Starts tracing when the environment asks for it; undefined when it does not. */
export async function startTracing(env: Env, defaultServiceName: string): Promise<Tracing | undefined> {
  const url = otlpTracesUrl(env);
  if (!url) return undefined;
  const [{ AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { Resource }, sdk] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  const serviceName = (env.OTEL_SERVICE_NAME ?? '').trim() || defaultServiceName;
  const resource = Resource.default().merge(new Resource({ 'service.name': serviceName }));
  const spanProcessor = new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url }));
  const provider = new sdk.BasicTracerProvider({ resource });
  provider.addSpanProcessor(spanProcessor);
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
  return { url, resource, spanProcessor, shutdown: () => provider.shutdown().catch(() => undefined) };
}

/**
 * The SDK's client interceptor when tracing is on: a start or signal is a span whose
 * context travels in the workflow's headers, so what it causes joins its trace. Loaded
 * only then (importing 'reelflow' stays the Temporal client alone).
 */
export async function tracingClientInterceptors(env: Env): Promise<Pick<ClientOptions, 'interceptors'>> {
  if (!tracingEnabled(env)) return {};
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry/lib/client');
  return { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } };
}
