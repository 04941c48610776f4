import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, trace, type Context, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const w3c = new W3CTraceContextPropagator();

type Carrier = Readonly<Record<string, string>>;

const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
};

/** The trace context a request arrived with (ROOT when it carried none or an invalid one). */
export function callerTraceContext(headers: Headers): Context {
  return headers.has('traceparent') ? w3c.extract(ROOT_CONTEXT, headers, headerGetter) : ROOT_CONTEXT;
}

/** The trace context of a call's `traceHeaders` (ROOT without). */
export function traceContextOf(headers: Carrier | undefined): Context {
  return headers ? w3c.extract(ROOT_CONTEXT, headers, defaultTextMapGetter) : ROOT_CONTEXT;
}

/**
 * The `traceparent`/`tracestate` headers naming `span` under `parent`, or undefined for no trace. The
 * API's no-op tracer (no backend) returns spans that keep the parent's ids: the caller's context then
 * reaches the upstream unchanged, validated by the W3C propagator rather than copied blindly.
 */
export function traceHeadersOf(parent: Context, span?: Span): Carrier | undefined {
  const carrier: Record<string, string> = {};
  w3c.inject(span ? trace.setSpan(parent, span) : parent, carrier, defaultTextMapSetter);
  return carrier.traceparent ? carrier : undefined;
}

/** The caller's trace context as headers to carry upstream, validated; undefined when it sent none. */
export function callerTraceHeaders(headers: Headers): Carrier | undefined {
  return headers.has('traceparent') ? traceHeadersOf(callerTraceContext(headers)) : undefined;
}
