import type { JsonRpcId } from './jsonrpc.js';

/**
 * The id of each JSON-RPC request once its envelope was read, by request, for the app's error handler
 * (unexpected-failure.ts) to answer with. Kept beside the request rather than on the Hono context, so
 * no surface needs a variable of its own in GatewayEnv for it; gone with the request.
 */
const readIds = new WeakMap<Request, JsonRpcId>();

/** Called by the JSON-RPC endpoint once the envelope is read. */
export function noteJsonRpcId(request: Request, id: JsonRpcId): void {
  readIds.set(request, id);
}

/** The request's id when its envelope was read, else null (JSON-RPC's id for a request it cannot name). */
export const jsonRpcIdOf = (request: Request): JsonRpcId => (readIds.has(request) ? (readIds.get(request) as JsonRpcId) : null);
