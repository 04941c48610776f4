import { contentTypeNotSupported, declaresJson } from '../shared/content-type.js';
import { operationCall, runCall, type CallEdge } from '../shared/call-pipeline.js';
import type { JsonRpcDialect, JsonRpcRequest } from '../shared/jsonrpc.js';
import { jsonRpcError, jsonRpcErrorBody, jsonRpcResult } from '../shared/jsonrpc-endpoint.js';
import { isV1Method } from '../shared/operations.js';
import { publicBaseUrl } from '../shared/public-url.js';
import { v1OperationEnv, type V1SurfaceDeps } from './deps.js';
import { checkV1Version } from './version.js';
import { withFields } from '../../model/index.js';
import { jsonRpcText } from '../../protocol/jsonrpc-exact-ids.js';

/**
 * The A2A 1.0 JSON-RPC methods (`SendMessage`, ...) on the shared `POST /` endpoint. Every answer
 * is HTTP 200; a stream's failure before its first event is a plain JSON-RPC error, after it an
 * `event: error` frame carrying the error envelope.
 */
export function createV1Dialect(deps: V1SurfaceDeps): JsonRpcDialect {
  const { options } = deps;
  const edge: CallEdge<JsonRpcRequest> = {
    surface: 'jsonrpc',
    extensionsHeader: 'A2A-Extensions',
    shutdown: deps.shutdown,
    errorResponse: (error, request) => jsonRpcError(request.id, error),
  };
  const serve = operationCall<JsonRpcRequest>(
    {
      parse(request, c) {
        if (!isV1Method(request.method)) throw new Error('unreachable: handles() admitted an unknown method');
        if (!declaresJson(c.req.raw.headers)) throw contentTypeNotSupported(c.req.raw.headers);
        const versionError = checkV1Version(c.req.raw, options.lenientVersion);
        if (versionError) throw versionError;
        return { method: request.method, params: request.params };
      },
      result: (result, { id }) => jsonRpcResult(id, result),
      frame: (result, { id }) => ({ data: jsonRpcText({ jsonrpc: '2.0', id, result }) }),
      errorFrame: (error, { id }) => ({ event: 'error', data: jsonRpcText(jsonRpcErrorBody(id, error)) }),
    },
    (c) => v1OperationEnv(deps, () => publicBaseUrl(c.req.raw, options.publicUrl)),
    withFields(options, { shutdown: deps.shutdown }),
  );
  return {
    name: 'a2a-1.0',
    handles: isV1Method,
    handle: (request, c) => runCall(c, edge, request, request.method, (open) => serve(request, c, open)),
  };
}
