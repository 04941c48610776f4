import type { Context } from 'hono';
import type { MappingProfile } from '../mappings/index.js';
import type { A2AError } from '../model/index.js';
import { isRecord } from '../model/json.js';
import { exactId } from '../protocol/jsonrpc-exact-ids.js';
import { readBodyText } from './shared/call-pipeline.js';
import type { GatewayEnv } from './shared/env.js';
import { isLegacyMethodName, type JsonRpcId } from './shared/jsonrpc.js';
import { jsonRpcError } from './shared/jsonrpc-endpoint.js';
import { v025ErrorAnswer } from './v025/index.js';
import { isRestPath, restError } from './v1/rest.js';

export interface CallerRefusalOptions {
  maxBodyBytes: number;
  /** The facade's profile when the facade is on: a 0.2.5 method is then refused in 0.2.5. */
  facadeProfile?: MappingProfile | undefined;
}

/** The id and method of a JSON-RPC body, as far as they can be read; a body that cannot be read names neither. */
async function peekCall(request: Request, maxBodyBytes: number): Promise<{ id: JsonRpcId; method?: string }> {
  try {
    const text = await readBodyText(request, maxBodyBytes);
    const payload: unknown = JSON.parse(text);
    if (!isRecord(payload)) return { id: null };
    const id = typeof payload.id === 'string' || typeof payload.id === 'number' ? exactId(payload.id, text) : null;
    return typeof payload.method === 'string' ? { id, method: payload.method } : { id };
  } catch {
    return { id: null };
  }
}

/**
 * A call refused before any surface has read it (a cap of the HTTP layer), in the caller's protocol:
 * HTTP+JSON and every GET as a REST error; a JSON-RPC call by its method, read from the body as the
 * endpoint would: a 0.2.5 method as the facade answers its errors (HTTP 200, a one-frame stream for a
 * streaming method), anything else as a 1.0 JSON-RPC error, 429 with `Retry-After`.
 */
export function refusalInCallersProtocol(options: CallerRefusalOptions): (c: Context<GatewayEnv>, error: A2AError) => Promise<Response> {
  return async (c, error) => {
    const request = c.req.raw;
    if (request.method !== 'POST' || isRestPath(new URL(request.url).pathname)) return restError(error);
    const { id, method } = await peekCall(request, options.maxBodyBytes);
    if (options.facadeProfile && method !== undefined && isLegacyMethodName(method)) return v025ErrorAnswer(id, method, error, options.facadeProfile);
    return jsonRpcError(id, error);
  };
}
