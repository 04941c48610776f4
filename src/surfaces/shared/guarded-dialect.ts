import type { MiddlewareHandler } from 'hono';
import type { GatewayEnv } from './env.js';
import type { JsonRpcDialect } from './jsonrpc.js';

/** What a guarded dialect tells the endpoint of its credentials (JsonRpcDialect's fields of the same names). */
export type DialectCredentials = Pick<JsonRpcDialect, 'servedAs' | 'presents' | 'meantBy' | 'sentNone' | 'unauthorized'>;

/**
 * One JSON-RPC dialect behind its own gate, so dialects sharing `POST /` keep their own auth: the
 * gate's rejection is the answer, else the dialect's. `admits` tells the endpoint, before it reads
 * the body, whether the gate would let the caller through.
 */
export function guardedDialect(
  dialect: JsonRpcDialect,
  gate: MiddlewareHandler<GatewayEnv>,
  admits: (headers: Headers) => boolean | Promise<boolean>,
  credentials: DialectCredentials = {},
): JsonRpcDialect {
  return {
    name: dialect.name,
    handles: (method) => dialect.handles(method),
    admits,
    // The endpoint answers envelope errors to any admitted caller; this only gives them the method's form.
    ...(dialect.refuse ? { refuse: dialect.refuse.bind(dialect) } : {}),
    ...credentials,
    // Run only for an answer the endpoint gives itself, so that a call pays its credentials' check once. The name is
    // for the log line and the metrics only: a check failing now (an introspection endpoint gone) leaves them without it.
    async nameCaller(c) {
      await Promise.resolve(gate(c, async () => undefined)).catch(() => undefined);
    },
    async handle(request, c) {
      let response: Response | undefined;
      const rejection = await gate(c, async () => {
        response = await dialect.handle(request, c);
      });
      return rejection ?? response ?? c.res;
    },
  };
}
