import type { MiddlewareHandler } from 'hono';
import type { BailianConfig } from '../../config/bailian-schema.js';
import type { GatewayEnv } from '../shared/env.js';
import { guardedDialect } from '../shared/guarded-dialect.js';
import type { JsonRpcDialect } from '../shared/jsonrpc.js';
import { principalOf } from '../shared/principal.js';
import { unauthorized } from '../shared/jsonrpc-endpoint.js';
import { safeEqual } from '../shared/safe-equal.js';

/** The header Bailian sends the console-configured key in. */
export const FACADE_KEY_HEADER = 'X-API-KEY';

export { unauthorized };

/**
 * Owner scope of facade tasks: one shared caller (Bailian) per key, named by the 0.2.5 surface and a
 * digest of the key; without a key, the facade's anonymous caller. Neither is ever a 1.0 principal.
 */
export function facadePrincipal(bailian: BailianConfig): string {
  const key = bailian['api-key'];
  return key ? principalOf('a2a-0.2.5', 'api-key', key) : principalOf('a2a-0.2.5', 'anonymous');
}

/** Whether a request may use the facade: always without a key, else `X-API-KEY` must match (constant time). */
export function facadeAuthorized(headers: Headers, bailian: BailianConfig): boolean {
  const key = bailian['api-key'];
  if (!key) return true;
  const presented = headers.get(FACADE_KEY_HEADER);
  return presented !== null && safeEqual(presented, key);
}

/**
 * Gate of the facade's own JSON-RPC routes, independent of the 1.0 surface's `auth`: 401
 * `{"error":"Unauthorized"}` without the key. Sets `c.var.principal`.
 */
export function requireFacadeKey(bailian: BailianConfig): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    if (!facadeAuthorized(c.req.raw.headers, bailian)) return unauthorized();
    c.set('principal', facadePrincipal(bailian));
    await next();
  };
}

/** The same gate for the facade's dialect on the `POST /` endpoint it shares with the 1.0 surface. */
export function guardedByFacadeKey(dialect: JsonRpcDialect, bailian: BailianConfig): JsonRpcDialect {
  return guardedDialect(dialect, requireFacadeKey(bailian), (headers) => facadeAuthorized(headers, bailian));
}
