import type { Context, ErrorHandler, MiddlewareHandler } from 'hono';
import { A2AError, ErrorCode, toRestError } from '../../model/index.js';
import type { GatewayEnv } from './env.js';
import type { JsonRpcId } from './jsonrpc.js';
import { jsonRpcError } from './jsonrpc-endpoint.js';
import { noteLog } from './log-fields.js';
import { jsonRpcIdOf } from './read-request-ids.js';

/** Where the app serves JSON-RPC, and how its 0.2.5 callers are answered. */
export interface UnexpectedFailureRoutes {
  /** The POST paths answered by a JSON-RPC endpoint: `/` and the facade's. */
  jsonRpcPaths: ReadonlySet<string>;
  /** The facade's own JSON-RPC paths (not shared with 1.0), and where it takes `message/stream`. */
  facade?: {
    paths: ReadonlySet<string>;
    /** Where it takes `message/stream` (with the trailing slash a pasted URL may have too). */
    streamPaths: ReadonlySet<string>;
    /** The facade's answer to a failed call of `method` (v025ErrorAnswer: SSE for a streaming method, else JSON, HTTP 200). */
    answer(id: JsonRpcId, method: string, error: A2AError): Response;
  };
}

/** The failure in the caller's protocol. */
function answerFor(c: Context<GatewayEnv>, routes: UnexpectedFailureRoutes, error: A2AError): Response {
  const path = c.req.path;
  const { surface, method } = c.get('logFields') ?? {};
  const isJsonRpc = c.req.method === 'POST' && routes.jsonRpcPaths.has(path);
  if (!isJsonRpc) {
    // The HTTP+JSON binding's google.rpc.Status, for its routes and every other route (cards, health).
    const { status, body } = toRestError(error);
    return Response.json(body, { status });
  }
  const id = jsonRpcIdOf(c.req.raw);
  const { facade } = routes;
  if (facade && (surface === 'v025' || facade.paths.has(path))) {
    // Before its body was read the method is unknown: where Bailian posts streams, it is a stream.
    const called = surface === 'v025' && method ? method : facade.streamPaths.has(path) ? 'message/stream' : 'message/send';
    return facade.answer(id, called, error);
  }
  return jsonRpcError(id, error);
}

/**
 * The app's last answer to a failure nothing else caught (a bug: the surfaces answer the errors they
 * expect in their own form, call-pipeline.ts and jsonrpc-endpoint.ts): -32603 "Internal error" in the
 * caller's protocol, never anything of the error itself (no message, stack or path). A JSON-RPC caller
 * (1.0 at `/`, the facade's endpoints) gets the error envelope with its request's id once that was read
 * (else null), with HTTP 200 as the binding answers errors, and as one SSE frame where a 0.2.5 stream was
 * asked for; an HTTP+JSON caller, and any other route, the google.rpc.Status body with HTTP 500.
 *
 * A failure after the handler answered (a middleware failing on its way out) leaves that answer as it is:
 * the call happened, and a caller told -32603 would send its turn again; a stream the handler opened would
 * be left running upstream, holding the conversation's lane.
 */
export function unexpectedFailureHandler(routes: UnexpectedFailureRoutes): ErrorHandler<GatewayEnv> {
  return (error, c) => {
    c.get('logger')?.error({ err: error instanceof ThrownValue ? error.thrown : error }, 'unhandled error');
    if (c.finalized) return c.res;
    noteLog(c, { errorCode: ErrorCode.Internal });
    return answerFor(c, routes, A2AError.internal());
  };
}

/** What a handler or middleware threw that is not an Error, carried to the error handler as one. */
class ThrownValue extends Error {
  constructor(readonly thrown: unknown) {
    super('A value that is not an Error was thrown');
    this.name = 'ThrownValue';
  }
}

/**
 * Hono hands the app's error handler only an Error (`instanceof Error`): any other value thrown
 * (`throw 'x'`, a promise rejected with a plain object) passes it by and rejects the app's fetch, which
 * @hono/node-server answers with a bare 500 of its own. Mounted first inside the request logger, this
 * throws such a value on as an Error, so the handler answers it like any other failure (or leaves the
 * answer already made) and the request's log line is still written.
 */
export function nonErrorsToErrorHandler(): MiddlewareHandler<GatewayEnv> {
  // catch(), not an async function: no suspended frame per request for what nearly always passes.
  return (_c, next) =>
    next().catch((error: unknown) => {
      throw error instanceof Error ? error : new ThrownValue(error);
    });
}
