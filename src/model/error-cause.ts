/**
 * `error` with `cause` as Error's own, non-enumerable `cause`: what really failed (a refused connection, a
 * Redis gone, the agent refusing the gateway's credentials) for the operator's log (upstream/failure-cause.ts),
 * never serialized to a caller, who reads only the error's message.
 */
export function withCause<E extends Error>(error: E, cause: unknown): E {
  if (cause === undefined) return error;
  Object.defineProperty(error, 'cause', { value: cause, configurable: true, writable: true, enumerable: false });
  return error;
}
