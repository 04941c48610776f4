import type { MiddlewareHandler } from 'hono';
import type { BailianConfig } from '../../config/bailian-schema.js';
import type { GatewayEnv } from '../shared/env.js';
import { guardedDialect } from '../shared/guarded-dialect.js';
import type { JsonRpcDialect } from '../shared/jsonrpc.js';
import { principalOf } from '../shared/principal.js';
import { unauthorized } from '../shared/jsonrpc-endpoint.js';
import { matchingSecret } from '../shared/safe-equal.js';

/** The header Bailian sends the console-configured key in. */
export const FACADE_KEY_HEADER = 'X-API-KEY';

export { unauthorized };

const keysOf = new WeakMap<BailianConfig, readonly string[]>();

/** The keys the facade takes: `bailian.api-key` and the `api-keys` list (two at once while Bailian's key is rotated). */
export function facadeKeys(bailian: BailianConfig): readonly string[] {
  let keys = keysOf.get(bailian);
  if (!keys) {
    keys = [...(bailian['api-key'] ? [bailian['api-key']] : []), ...bailian['api-keys']];
    keysOf.set(bailian, keys);
  }
  return keys;
}

const ANONYMOUS_FACADE_PRINCIPAL = principalOf('a2a-0.2.5', 'anonymous');

/**
 * Owner scope of a facade call, or undefined when the facade has keys and the request presents none of
 * them in `X-API-KEY` (compared in constant time with all of them). Each key is a caller of its own,
 * named by the 0.2.5 surface and a digest of the key; without keys, the facade's anonymous caller.
 * Neither is ever a 1.0 principal.
 */
export function facadePrincipal(headers: Headers, bailian: BailianConfig): string | undefined {
  const keys = facadeKeys(bailian);
  if (keys.length === 0) return ANONYMOUS_FACADE_PRINCIPAL;
  const presented = headers.get(FACADE_KEY_HEADER);
  const key = presented === null ? undefined : matchingSecret(presented, keys);
  return key === undefined ? undefined : principalOf('a2a-0.2.5', 'api-key', key);
}

/** Whether a request may use the facade: always without keys, else `X-API-KEY` must be one of them. */
export function facadeAuthorized(headers: Headers, bailian: BailianConfig): boolean {
  return facadePrincipal(headers, bailian) !== undefined;
}

/**
 * Gate of the facade's own JSON-RPC routes, independent of the 1.0 surface's `auth`: 401
 * `{"error":"Unauthorized"}` without the key. Sets `c.var.principal`.
 */
export function requireFacadeKey(bailian: BailianConfig): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const principal = facadePrincipal(c.req.raw.headers, bailian);
    if (principal === undefined) return unauthorized();
    c.set('principal', principal);
    await next();
  };
}

/** The same gate for the facade's dialect on the `POST /` endpoint it shares with the 1.0 surface. */
export function guardedByFacadeKey(dialect: JsonRpcDialect, bailian: BailianConfig): JsonRpcDialect {
  return guardedDialect(dialect, requireFacadeKey(bailian), (headers) => facadeAuthorized(headers, bailian));
}
