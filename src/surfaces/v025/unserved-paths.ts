import type { Context, Next } from 'hono';
import { servedByV1Surface } from '../../gateway-routes.js';
import type { MappingProfile } from '../../mappings/index.js';
import { A2AError } from '../../model/index.js';
import { jsonRpcText } from '../../protocol/jsonrpc-exact-ids.js';
import type { GatewayEnv } from '../shared/env.js';
import { noteLog } from '../shared/log-fields.js';
import { underBase } from './deps.js';
import { v025ErrorBody } from './errors.js';

/**
 * A facade endpoint's paths: as its card names it, and with the trailing slash a URL pasted into Bailian's console
 * often has (`POST /bailian/` is `POST /bailian`). At `/` only `/` itself.
 */
export const endpointPaths = (path: string): string[] => (path === '/' ? [path] : [path, `${path}/`]);

/**
 * A path under the facade's own base path that none of its routes serves: 404 with a 0.2.5 error envelope (-32601,
 * the code JSON-RPC over HTTP pairs with 404) naming the facade's routes, whoever asks. Not the 1.0 surface's 401
 * ("Unauthorized" reads as a wrong X-API-KEY to the operator whose key is right), and an envelope both of a2a-js
 * 0.2.5's calls print: message/stream its `error.message` ("RPC Error: …"), message/send the body. A path the 1.0
 * surface serves (a `/{tenant}` of the base's name, the agent's own routes) is left to it.
 */
export function unservedUnderBase(
  base: string,
  cardPath: string,
  profile: MappingProfile,
): (c: Context<GatewayEnv>, next: Next) => Promise<Response | void> {
  const error = A2AError.methodNotFound().toldAs(
    `Not Found: the Bailian facade serves JSON-RPC at POST ${base} and POST ${underBase(base, '/stream')}, its card at GET ${cardPath}`,
  );
  const body = jsonRpcText(v025ErrorBody(null, error, profile));
  return async (c, next) => {
    if (servedByV1Surface(c.req.path)) return next();
    noteLog(c, { surface: 'v025', errorCode: error.code });
    return new Response(body, { status: 404, headers: { 'content-type': 'application/json' } });
  };
}
