import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { eventTaskRef, eventTaskState, toA2AError, type StreamResponse } from '../model/index.js';
import { callerTraceContext, traceHeadersOf } from './trace-context.js';

/** The SERVER span of one gRPC call, as the HTTP bindings' tracing middleware makes for a request. */
export interface GrpcServerSpan {
  /** The trace context the call's upstream requests carry: this span's. */
  traceHeaders?: Readonly<Record<string, string>>;
  /** Task id, context id and state of an answer or event. */
  note(result: unknown): void;
  /** Ends the span with the call's gRPC status (0: OK) and, when it failed with one, its A2A error. */
  end(grpcCode: number, error?: unknown): void;
}

const isEvent = (value: unknown): value is StreamResponse =>
  typeof value === 'object' && value !== null && ('task' in value || 'message' in value || 'statusUpdate' in value || 'artifactUpdate' in value);

/** Starts the span of a gRPC call to `method`, child of the caller's `traceparent` metadata when it sent one. */
export function startGrpcServerSpan(tracer: Tracer, headers: Headers, method: string): GrpcServerSpan {
  const parent = callerTraceContext(headers);
  const span = tracer.startSpan(`a2a ${method}`, { kind: SpanKind.SERVER, attributes: { 'a2a.surface': 'grpc', 'a2a.method': method } }, parent);
  const traceHeaders = traceHeadersOf(parent, span);
  return {
    ...(traceHeaders ? { traceHeaders } : {}),
    note(result) {
      // A unary answer is an event-shaped wrapper (SendMessage) or a bare Task (GetTask, CancelTask).
      const ref = isEvent(result) ? { ...eventTaskRef(result), state: eventTaskState(result) } : taskRef(result);
      if (ref.taskId) span.setAttribute('a2a.task.id', ref.taskId);
      if (ref.contextId) span.setAttribute('a2a.context.id', ref.contextId);
      if (ref.state) span.setAttribute('a2a.task.state', ref.state);
    },
    end(grpcCode, error) {
      span.setAttribute('rpc.grpc.status_code', grpcCode);
      if (grpcCode !== 0) {
        if (error !== undefined) span.setAttribute('a2a.error.code', toA2AError(error).code);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}

function taskRef(result: unknown): { taskId?: string; contextId?: string; state?: string } {
  if (typeof result !== 'object' || result === null || !('id' in result) || !('status' in result)) return {};
  const task = result as { id: string; contextId?: string; status?: { state?: string } };
  return { taskId: task.id, ...(task.contextId ? { contextId: task.contextId } : {}), ...(task.status?.state ? { state: task.status.state } : {}) };
}
