import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { AgentPort, CallContext, Upstream } from '../core/agent-port.js';
import { toA2AError, eventTaskRef, type StreamResponse } from '../model/index.js';
import { methodName, overlay, stateOf, STREAM_METHODS, UNARY_METHODS } from './port-methods.js';

/** Task id, context id and state of an answer or event, on `span`. */
function note(span: Span, event: StreamResponse): void {
  const { taskId, contextId } = eventTaskRef(event);
  if (taskId) span.setAttribute('a2a.task.id', taskId);
  if (contextId) span.setAttribute('a2a.context.id', contextId);
  const state = stateOf(event);
  if (state) span.setAttribute('a2a.task.state', state);
}

function failed(span: Span, error: unknown): void {
  const a2a = toA2AError(error);
  span.setAttribute('a2a.error.code', a2a.code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: a2a.message });
}

/**
 * One CLIENT span per upstream call, child of the request's span; the call runs in the span's context,
 * so the `traceparent` the upstream receives names this span. A stream's span covers every pull.
 */
export function tracedUpstream<U extends Upstream>(upstream: U, tracer: Tracer): U {
  const methods: Record<string, unknown> = {};
  for (const name of UNARY_METHODS) {
    methods[name] = async (...args: unknown[]) => {
      const span = tracer.startSpan(`a2a.upstream ${methodName(name)}`, { kind: SpanKind.CLIENT, attributes: { 'a2a.method': methodName(name) } });
      try {
        const result = await context.with(trace.setSpan(context.active(), span), () =>
          (upstream[name] as (...a: unknown[]) => Promise<unknown>).apply(upstream, args),
        );
        if (result && typeof result === 'object' && ('task' in result || 'message' in result)) note(span, result as StreamResponse);
        return result;
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    };
  }
  for (const name of STREAM_METHODS) {
    methods[name] = async function* (request: never, ctx: CallContext) {
      const span = tracer.startSpan(`a2a.upstream ${methodName(name)}`, { kind: SpanKind.CLIENT, attributes: { 'a2a.method': methodName(name) } });
      const spanContext = trace.setSpan(context.active(), span);
      const events = context.with(spanContext, () => upstream[name](request, ctx)[Symbol.asyncIterator]());
      try {
        for (;;) {
          const next = await context.with(spanContext, () => events.next());
          if (next.done) break;
          note(span, next.value);
          yield next.value;
        }
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        await events.return?.();
        span.end();
      }
    };
  }
  return overlay(upstream, methods as Partial<AgentPort>);
}

/** The request's own span learns the task's ids and last state from what the core answers. */
export function tracedPort<P extends AgentPort>(port: P): P {
  async function* noted(events: AsyncIterable<StreamResponse>, span: Span | undefined): AsyncGenerator<StreamResponse> {
    for await (const event of events) {
      if (span) note(span, event);
      yield event;
    }
  }
  return overlay(port, {
    async sendMessage(request: Parameters<AgentPort['sendMessage']>[0], ctx: CallContext) {
      const span = trace.getActiveSpan();
      const answer = await port.sendMessage(request, ctx);
      if (span) note(span, answer);
      return answer;
    },
    sendStreamingMessage: (request: Parameters<AgentPort['sendStreamingMessage']>[0], ctx: CallContext) =>
      noted(port.sendStreamingMessage(request, ctx), trace.getActiveSpan()),
    subscribeToTask: (request: Parameters<AgentPort['subscribeToTask']>[0], ctx: CallContext) =>
      noted(port.subscribeToTask(request, ctx), trace.getActiveSpan()),
  });
}
