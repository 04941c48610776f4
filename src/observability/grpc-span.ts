import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { toA2AError } from '../model/index.js';
import { callerTraceContext, traceHeadersOf } from './trace-context.js';
import { noteTask } from './tracing-port.js';

/** The SERVER span of one gRPC call, as the HTTP bindings' tracing middleware makes for a request. */
export interface GrpcServerSpan {
  /** The trace context the call's upstream requests carry: this span's. */
  traceHeaders?: Readonly<Record<string, string>>;
  /** Task id, context id and state of an answer or event. */
  note(result: unknown): void;
  /**
   * Ends the span with the call's gRPC status (0: OK) and, when it failed with one, its A2A error; a call whose
   * caller left (`ended`) did not fail, whatever its status.
   */
  end(grpcCode: number, error?: unknown, ended?: 'caller_left'): void;
}

/**
 * Starts the span of a gRPC call to `method` by the named `client` (when its credential has a name),
 * child of the caller's `traceparent` metadata when it sent one.
 */
export function startGrpcServerSpan(tracer: Tracer, headers: Headers, method: string, client?: string): GrpcServerSpan {
  const parent = callerTraceContext(headers);
  const attributes = { 'a2a.surface': 'grpc', 'a2a.method': method, ...(client === undefined ? {} : { 'a2a.client': client }) };
  const span = tracer.startSpan(`a2a ${method}`, { kind: SpanKind.SERVER, attributes }, parent);
  const traceHeaders = traceHeadersOf(parent, span);
  return {
    note: (result) => noteTask(span, result),
    end(grpcCode, error, ended) {
      span.setAttribute('rpc.grpc.status_code', grpcCode);
      if (ended !== undefined) span.setAttribute('a2a.ended', ended);
      else if (grpcCode !== 0) {
        if (error !== undefined) span.setAttribute('a2a.error.code', toA2AError(error).code);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
    ...(traceHeaders ? { traceHeaders } : {}),
  };
}
