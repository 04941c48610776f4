import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

let installed = false;

/**
 * W3C trace context across the gateway, with or without a tracing backend: a caller's `traceparent`
 * is taken from the request, follows the call through async code, and is written on every upstream
 * request. Without a tracer provider the spans are no-ops that keep the caller's ids, so the upstream
 * still joins the caller's trace. Idempotent; the API's globals can be set once per process.
 */
export function installTraceContext(): void {
  if (installed) return;
  installed = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}

/** The `traceparent`/`tracestate` headers of the current context (empty outside a traced call). */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
