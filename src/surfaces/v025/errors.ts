import { toA2AError } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import { errorToV025, type V025ErrorObject } from '../../translate/index.js';
import type { JsonRpcId } from '../shared/jsonrpc.js';

export interface V025ErrorEnvelope {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: V025ErrorObject;
}

/** Anything thrown, as a 0.2.5 error envelope: code mapped by the profile, a safe message, no 1.0 ErrorInfo list. */
export function v025ErrorBody(id: JsonRpcId, error: unknown, profile: MappingProfile): V025ErrorEnvelope {
  return { jsonrpc: '2.0', id, error: errorToV025(toA2AError(error), profile) };
}

/** HTTP 200 like every JSON-RPC answer: the a2a-js 0.2.5 client throws away the body of a non-2xx reply. */
export function v025Error(id: JsonRpcId, error: unknown, profile: MappingProfile): Response {
  return new Response(JSON.stringify(v025ErrorBody(id, error, profile)), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}
