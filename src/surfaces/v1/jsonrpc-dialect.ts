import type { Context } from 'hono';
import { toA2AError } from '../../model/index.js';
import { contentTypeNotSupported, declaresJson } from '../shared/content-type.js';
import type { GatewayEnv } from '../shared/env.js';
import type { JsonRpcDialect, JsonRpcId, JsonRpcRequest } from '../shared/jsonrpc.js';
import { echoExtensions } from '../shared/extensions-header.js';
import { jsonRpcError, jsonRpcErrorBody, jsonRpcResult } from '../shared/jsonrpc-endpoint.js';
import { noteLog } from '../shared/log-fields.js';
import { publicBaseUrl } from '../shared/public-url.js';
import { mapIterable, sseResponse } from '../shared/sse.js';
import { portCall } from './call.js';
import { isV1Method, prepareCall, resultRef, type OperationEnv, type V1SurfaceDeps } from './operations.js';
import { openV1Stream, STREAM_ACCEPTED_COMMENT } from './stream-open.js';
import { checkV1Version } from './version.js';

/**
 * The A2A 1.0 JSON-RPC methods (`SendMessage`, ...) on the shared `POST /` endpoint. Every answer
 * is HTTP 200; a stream's failure before its first event is a plain JSON-RPC error, after it an
 * `event: error` frame carrying the error envelope.
 */
export function createV1Dialect(deps: V1SurfaceDeps): JsonRpcDialect {
  const { port, config } = deps;

  async function handle(request: JsonRpcRequest, c: Context<GatewayEnv>): Promise<Response> {
    const { id, method } = request;
    noteLog(c, { surface: 'jsonrpc', method });
    const fail = (error: unknown): Response => {
      const a2aError = toA2AError(error);
      noteLog(c, { errorCode: a2aError.code });
      return jsonRpcError(id, a2aError);
    };
    if (!isV1Method(method)) return fail(new Error('unreachable: handles() admitted an unknown method'));

    if (!declaresJson(c.req.raw.headers)) return fail(contentTypeNotSupported(c.req.raw.headers));
    const versionError = checkV1Version(c.req.raw, config);
    if (versionError) return fail(versionError);

    const env: OperationEnv = { port, config, cards: deps.cards, signer: deps.signer, baseUrl: () => publicBaseUrl(c.req.raw, config) };
    const { ctx, abort, release, activated } = portCall(c, 'jsonrpc', deps.shutdown);
    try {
      const call = prepareCall(method, request.params, env);
      noteLog(c, call.ref);
      if (call.kind === 'unary') {
        const result = await call.run(ctx);
        noteLog(c, resultRef(result));
        return echoExtensions(jsonRpcResult(id, result), activated(), 'A2A-Extensions');
      }
      const opened = await openV1Stream(call.run, { ctx, abort }, config.upstream['first-event-timeout-ms']);
      noteLog(c, resultRef(opened.first));
      return echoExtensions(streamResponse(id, opened.events, { signal: ctx.signal, abort, quiet: opened.quiet }), activated(), 'A2A-Extensions');
    } catch (error) {
      return fail(error);
    } finally {
      release();
    }
  }

  /**
   * A stream's SSE answer; `call.signal` is the call's (aborted when the client goes away), `abort`
   * ends the upstream call. Nothing here holds the Hono context: an open stream would keep it alive,
   * and the request's log line was written when the headers went out.
   */
  function streamResponse(id: JsonRpcId, events: AsyncIterable<unknown>, call: { signal: AbortSignal; abort: () => void; quiet: boolean }): Response {
    const frames = mapIterable(events, (result) => ({ data: JSON.stringify({ jsonrpc: '2.0', id, result }) }));
    return sseResponse(frames, {
      keepaliveMs: config['keepalive-ms'],
      signal: call.signal,
      shutdown: deps.shutdown,
      onCancel: call.abort,
      onError: (error) => ({ event: 'error', data: JSON.stringify(jsonRpcErrorBody(id, toA2AError(error))) }),
      ...(call.quiet ? { comment: STREAM_ACCEPTED_COMMENT } : {}),
    });
  }

  return { name: 'a2a-1.0', handles: isV1Method, handle };
}
