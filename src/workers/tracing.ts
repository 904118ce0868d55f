/**
 * What a worker adds when tracing is on (src/telemetry/tracing.ts): the SDK's
 * OpenTelemetry activity interceptors (a RunActivity span per attempt, child of the
 * workflow's StartActivity span through the activity's headers; activity log lines get
 * trace_id/span_id) and the sink that carries the workflow's spans out of the sandbox to
 * the span processor. The workflow interceptors themselves are in the tracing bundle
 * (./bundle.ts), or in `workflowModules` when the SDK bundles at start.
 */
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '../telemetry/tracing';
import { TRACING_INTERCEPTORS_MODULE } from './bundle';

export type TracingWorkerOptions = Pick<WorkerOptions, 'interceptors' | 'sinks'>;

export async function tracingWorkerOptions(
  tracing: Tracing,
  opts: { bundledAtStart: boolean },
): Promise<TracingWorkerOptions> {
  const otel = await import('@temporalio/interceptors-opentelemetry');
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      ...(opts.bundledAtStart ? { workflowModules: [require.resolve(TRACING_INTERCEPTORS_MODULE)] } : {}),
    },
    sinks: { exporter: otel.makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
