import { SpanKind, SpanStatusCode, trace, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import type { GatewayEnv } from '../surfaces/shared/env.js';
import { isStream, onBodyEnd, replaceResponse } from './body-end.js';
import { methodLabel, surfaceLabel } from './metric-labels.js';
import { callerTraceContext, callerTraceHeaders, traceHeadersOf } from './trace-context.js';
import { settlesWithin } from '../settles-within.js';

export const TRACER_NAME = 'a2a-bridge';

/**
 * How long a stop waits for the last spans to reach the OTLP collector. The exporter itself retries a
 * collector that does not answer for up to 10 s (timeout, then back-off), which would hold every stop,
 * a rolling restart's included, for that long; spans are not worth it. What is not sent by then is dropped.
 */
export const TRACES_FLUSH_ON_STOP_MS = 2_000;

export interface Tracing {
  tracer: Tracer;
  /** Spans go somewhere: worth one per upstream call. Without, only the caller's context is carried. */
  recording: boolean;
  /** Flushes and stops the exporter (nothing without one), waiting at most TRACES_FLUSH_ON_STOP_MS. */
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
    shutdown: () => stopWithin(TRACES_FLUSH_ON_STOP_MS, sdk.shutdown(), logger),
  };
}

/**
 * The exporter's stop, waited for at most `ms`. Past that the gateway's stop goes on; the export still
 * under way is not abandoned by the SDK (it ends on its own timeout), but a stopping process does not
 * wait for it (`a2a-bridge serve` exits once the gateway is closed).
 */
async function stopWithin(ms: number, stopping: Promise<void>, logger: Logger): Promise<void> {
  const stopped = stopping.catch((err: unknown) => logger.warn({ err }, 'trace exporter shutdown failed'));
  if (!(await settlesWithin(stopped, ms))) {
    logger.warn({ waitedMs: ms }, 'the trace collector did not take the last spans in time: they are dropped');
  }
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
  if (fields.ended) span.setAttribute('a2a.ended', fields.ended);
  if (fields.errorCode !== undefined) {
    span.setAttribute('a2a.error.code', fields.errorCode);
    span.setStatus({ code: SpanStatusCode.ERROR, message: `A2A error ${fields.errorCode}` });
  } else if (status >= 500 || error) span.setStatus({ code: SpanStatusCode.ERROR });
}
