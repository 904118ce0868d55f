/**
 * One OpenTelemetry CLIENT span per vendor HTTP call, child of the running activity's span.
 * Through @opentelemetry/api only: with no tracer provider registered (tracing off, see
 * src/telemetry/tracing.ts) the tracer is the API's no-op and costs an object or two.
 *
 * The span says what was called, never with what: method, route (the path without its
 * query string, ids as `{id}`), host and port, status, the logical endpoint and the error
 * class. No headers, no body, no query (a signed URL's signature lives there).
 */
import { SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';

/** A ProxyTracer: it finds the provider whenever one is registered, before or after this import. */
const tracer = trace.getTracer('reelflow-vendor');

export interface SpannedCall {
  method: string;
  url: string;
  endpoint: string;
  /** Low-cardinality path template; default the URL's path. */
  route?: string;
}

/** The path of an absolute URL, query and fragment dropped (works on templates with braces too). */
export function pathOf(url: string): string {
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/[?#].*$/s, '') || '/';
}

function hostAttributes(url: string): Attributes {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    return { 'server.address': u.hostname, 'server.port': port };
  } catch {
    return {};
  }
}

/** Runs `fn` (the HTTP exchange) inside a span; the result's or the error's status is recorded. */
export function inVendorSpan<T extends { status: number }>(call: SpannedCall, fn: () => Promise<T>): Promise<T> {
  const route = call.route ?? pathOf(call.url);
  const attributes: Attributes = {
    'http.request.method': call.method,
    'url.template': route,
    'reelflow.vendor.endpoint': call.endpoint,
    ...hostAttributes(call.url),
  };
  return tracer.startActiveSpan(`${call.method} ${route}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const res = await fn();
      span.setAttribute('http.response.status_code', res.status);
      return res;
    } catch (err) {
      const e = err as { name?: unknown; status?: unknown };
      if (typeof e.status === 'number') span.setAttribute('http.response.status_code', e.status);
      const type = typeof e.name === 'string' ? e.name : 'Error';
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      throw err;
    } finally {
      span.end();
    }
  });
}
