import { SpanKind, SpanStatusCode, trace, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import type { GatewayEnv } from '../surfaces/shared/env.js';
import { isStream, onBodyEnd, replaceResponse } from './body-end.js';
import { methodLabel, surfaceLabel } from './metrics.js';
import { callerTraceContext, callerTraceHeaders, traceHeadersOf } from './trace-context.js';

export const TRACER_NAME = 'a2a-bridge';

export interface Tracing {
  tracer: Tracer;
  /** Spans go somewhere: worth one per upstream call. Without, only the caller's context is carried. */
  recording: boolean;
  /** Flushes and stops the exporter (nothing without one). */
  shutdown(): Promise<void>;
}

/**
 * The tracer: from `provider` when given (tests use an in-memory exporter), else an OTLP/HTTP exporter
 * when `tracing.otlp-endpoint` is set (the SDK is loaded only then), else the API's no-op tracer, which
 * still carries the caller's trace context to the upstream.
 */
export async function createTracing(config: GatewayConfig['tracing'], logger: Logger, provider?: TracerProvider): Promise<Tracing> {
  if (provider) return { tracer: provider.getTracer(TRACER_NAME), recording: true, shutdown: async () => undefined };
  const endpoint = config['otlp-endpoint'];
  if (!endpoint) return { tracer: trace.getTracer(TRACER_NAME), recording: false, shutdown: async () => undefined };
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const sdk = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config['service-name'] }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint }))],
  });
  logger.info({ endpoint }, 'exporting traces over OTLP/HTTP');
  return {
    tracer: sdk.getTracer(TRACER_NAME),
    recording: true,
    shutdown: () => sdk.shutdown().catch((err: unknown) => logger.warn({ err }, 'trace exporter shutdown failed')),
  };
}

/**
 * Without a backend, the caller's W3C trace context (when it sent one) is what upstream calls carry:
 * the upstream joins the caller's trace, and no span is made.
 */
export function traceContextMiddleware(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const headers = callerTraceHeaders(c.req.raw.headers);
    if (headers) c.set('traceHeaders', headers);
    await next();
  };
}

/**
 * One SERVER span per request, child of the caller's `traceparent` when it sent one, named after the
 * A2A method and carrying what the handlers noted (surface, method, task and context ids, state, error
 * code). A stream's span lasts until the stream ends. Upstream calls made meanwhile are its children:
 * the span's context goes to them on the CallContext (`traceHeaders`), not through an async context.
 */
export function tracingMiddleware(tracer: Tracer): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const parent = callerTraceContext(c.req.raw.headers);
    const span = tracer.startSpan(`${c.req.method}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': c.req.method } }, parent);
    const headers = traceHeadersOf(parent, span);
    if (headers) c.set('traceHeaders', headers);
    await next();
    describe(span, c.get('logFields') ?? {}, c.res.status, c.error);
    if (isStream(c.res) && c.res.status === 200)
      replaceResponse(
        c,
        onBodyEnd(c.res, () => span.end()),
      );
    else span.end();
  };
}

function describe(span: Span, fields: GatewayEnv['Variables']['logFields'], status: number, error: unknown): void {
  const method = methodLabel(fields.method);
  span.updateName(method ? `a2a ${method}` : `${surfaceLabel(fields.surface)} request`);
  span.setAttribute('http.response.status_code', status);
  span.setAttribute('a2a.surface', surfaceLabel(fields.surface));
  if (method) span.setAttribute('a2a.method', method);
  if (fields.client) span.setAttribute('a2a.client', fields.client);
  if (fields.taskId) span.setAttribute('a2a.task.id', fields.taskId);
  if (fields.contextId) span.setAttribute('a2a.context.id', fields.contextId);
  if (fields.state) span.setAttribute('a2a.task.state', fields.state);
  if (fields.errorCode !== undefined) {
    span.setAttribute('a2a.error.code', fields.errorCode);
    span.setStatus({ code: SpanStatusCode.ERROR, message: `A2A error ${fields.errorCode}` });
  } else if (status >= 500 || error) span.setStatus({ code: SpanStatusCode.ERROR });
}
