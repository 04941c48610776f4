/**
 * Whether a path belongs to the HTTP+JSON binding (src/gateway-routes.ts, which the config's check of the facade's
 * base path reads too). Re-exported here, this module importing nothing else, so that the credentials gate can answer in the
 * binding's form without depending on the binding.
 */
export { isRestPath } from '../../gateway-routes.js';

/**
 * A refusal of the HTTP+JSON binding that is no A2A error (an unknown route, a wrong method, missing
 * credentials) in the binding's error form all the same, a google.rpc.Status body (AIP-193), so that
 * clients that read that form (a2a-js 1.x) report the status and words instead of a generic failure.
 * Like the gateway's other refusals that are not A2A's, it carries no ErrorInfo: a reason under A2A's
 * domain would claim it is one.
 */
export function restStatus(httpStatus: number, grpcStatus: string, message: string, headers: Record<string, string> = {}): Response {
  const body = JSON.stringify({ error: { code: httpStatus, status: grpcStatus, message, details: [] } });
  return new Response(body, { status: httpStatus, headers: { 'content-type': 'application/json', ...headers } });
}

/** A path of the binding's form that names none of its routes. */
export const restRouteNotFound = (): Response => restStatus(404, 'NOT_FOUND', 'Not Found: no HTTP+JSON route has this path');

/**
 * A route asked with a method it does not take: 405 with `Allow`, `UNIMPLEMENTED` as grpc-gateway
 * answers a method mismatch (gRPC has no closer status; the HTTP status stays the precise one, as the
 * binding's 415 does).
 */
export const restMethodNotAllowed = (allowed: readonly string[]): Response =>
  restStatus(405, 'UNIMPLEMENTED', `Method Not Allowed: this route takes ${allowed.join(', ')}`, { allow: allowed.join(', ') });

/** A caller without valid credentials on the binding's routes: 401 `UNAUTHENTICATED`. */
export const restUnauthenticated = (): Response => restStatus(401, 'UNAUTHENTICATED', 'Unauthorized: valid credentials are required');
