import { SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import type { AgentPort, CallContext, Upstream } from '../core/agent-port.js';
import { withFields, answerTaskRef, toA2AError } from '../model/index.js';
import { callContextOf, methodName, overlay, STREAM_METHODS, UNARY_METHODS } from './port-methods.js';
import { traceContextOf, traceHeadersOf } from './trace-context.js';

/** Task id, context id and state of an answer or event (anything answerTaskRef reads), on `span`. */
export function noteTask(span: Span, result: unknown): void {
  const { taskId, contextId, state } = answerTaskRef(result);
  if (taskId) span.setAttribute('a2a.task.id', taskId);
  if (contextId) span.setAttribute('a2a.context.id', contextId);
  if (state) span.setAttribute('a2a.task.state', state);
}

function failed(span: Span, error: unknown): void {
  const a2a = toA2AError(error);
  span.setAttribute('a2a.error.code', a2a.code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: a2a.message });
}

/**
 * The CLIENT span of one upstream call, child of the request's span (the call's `traceHeaders`), and
 * the call's context with `traceHeaders` naming this span, so the `traceparent` the upstream receives
 * is the client span's.
 */
function clientSpan(tracer: Tracer, name: string, ctx: CallContext): { span: Span; ctx: CallContext } {
  const parent = traceContextOf(ctx.traceHeaders);
  const method = methodName(name);
  const span = tracer.startSpan(`a2a.upstream ${method}`, { kind: SpanKind.CLIENT, attributes: { 'a2a.method': method } }, parent);
  const traceHeaders = traceHeadersOf(parent, span);
  return { span, ctx: traceHeaders ? withFields(ctx, { traceHeaders }) : ctx };
}

/** One CLIENT span per upstream call; a stream's span covers every pull. */
export function tracedUpstream<U extends Upstream>(upstream: U, tracer: Tracer): U {
  const methods: Record<string, unknown> = {};
  for (const name of UNARY_METHODS) {
    methods[name] = async (...args: unknown[]) => {
      const traced = clientSpan(tracer, name, callContextOf(args));
      try {
        const result = await (upstream[name] as (...a: unknown[]) => Promise<unknown>).apply(upstream, [...args.slice(0, -1), traced.ctx]);
        noteTask(traced.span, result);
        return result;
      } catch (error) {
        failed(traced.span, error);
        throw error;
      } finally {
        traced.span.end();
      }
    };
  }
  for (const name of STREAM_METHODS) {
    methods[name] = async function* (request: never, ctx: CallContext) {
      const traced = clientSpan(tracer, name, ctx);
      try {
        for await (const event of upstream[name](request, traced.ctx)) {
          noteTask(traced.span, event);
          yield event;
        }
      } catch (error) {
        failed(traced.span, error);
        throw error;
      } finally {
        traced.span.end();
      }
    };
  }
  return overlay(upstream, methods as Partial<AgentPort>);
}
