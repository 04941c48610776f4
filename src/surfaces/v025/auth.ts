import type { MiddlewareHandler } from 'hono';
import type { BailianConfig } from '../../config/bailian-schema.js';
import type { CallerAuth } from '../shared/auth.js';
import { admitCaller, callerTable, matchingCaller, type Caller, type CallerTable } from '../shared/caller.js';
import type { GatewayEnv } from '../shared/env.js';
import { guardedDialect } from '../shared/guarded-dialect.js';
import { noteLog } from '../shared/log-fields.js';
import type { JsonRpcDialect } from '../shared/jsonrpc.js';
import { principalOf } from '../shared/principal.js';
import { asksForV1, requestedVersion } from '../v1/version.js';

/** The header Bailian sends the console-configured key in. */
export const FACADE_KEY_HEADER = 'X-API-KEY';

/**
 * The 401 body of the facade: a JSON-RPC error object, so a 0.2.5 client reports its words ("RPC error for
 * message/send: Unauthorized: …"), where `{"error":"Unauthorized"}` read "undefined". Without the `jsonrpc` member: the
 * a2a-js 0.2.5 client reads the error of a non-2xx body only without it (with it, message/send fails "Body is
 * unusable"); its message/stream reads both. -32000: JSON-RPC's server error, as the turn cap's; A2A has no code for it.
 */
const FACADE_UNAUTHORIZED_BODY = JSON.stringify({
  id: null,
  error: { code: -32000, message: `Unauthorized: a valid API key is required in the ${FACADE_KEY_HEADER} header` },
});

/** The facade's answer to a caller without a valid key: 401 as HTTP says, no WWW-Authenticate (an API key has no scheme). */
export const facadeUnauthorized = (): Response =>
  new Response(FACADE_UNAUTHORIZED_BODY, { status: 401, headers: { 'content-type': 'application/json' } });

const callersOf = new WeakMap<BailianConfig, CallerTable>();

/** The facade's callers, one per key: `bailian.api-key` and the `api-keys` list; worked out once per config block. */
function facadeCallers(bailian: BailianConfig): CallerTable {
  let callers = callersOf.get(bailian);
  if (!callers) {
    callers = callerTable('a2a-0.2.5', 'api-key', bailian['api-key'], bailian['api-keys']);
    callersOf.set(bailian, callers);
  }
  return callers;
}

/** The keys the facade takes (two at once while Bailian's key is rotated). */
export function facadeKeys(bailian: BailianConfig): readonly string[] {
  return facadeCallers(bailian).secrets;
}

/**
 * Whether facade callers may have the extended card the upstream gives the gateway's own credentials: not with
 * gateway auth on and no facade key, where every facade caller is anonymous (card.ts; the relay, passthrough.ts).
 */
export function extendedCardForFacadeCallers(options: { gatewayAuth: boolean; bailian: BailianConfig }): boolean {
  return !options.gatewayAuth || facadeKeys(options.bailian).length > 0;
}

const ANONYMOUS_FACADE_CALLER: Caller = { principal: principalOf('a2a-0.2.5', 'anonymous') };

/**
 * The caller of a facade call, or undefined when the facade has keys and the request presents none of
 * them in `X-API-KEY` (compared in constant time with all of them). Each key is a caller of its own,
 * its principal named by the 0.2.5 surface and a digest of the key; without keys, the facade's
 * anonymous caller. Neither is ever a 1.0 principal.
 */
export function facadeCaller(headers: Headers, bailian: BailianConfig): Caller | undefined {
  const callers = facadeCallers(bailian);
  if (callers.secrets.length === 0) return ANONYMOUS_FACADE_CALLER;
  return matchingCaller(headers.get(FACADE_KEY_HEADER), callers);
}

/** Whether a request may use the facade: always without keys, else `X-API-KEY` must be one of them. */
export function facadeAuthorized(headers: Headers, bailian: BailianConfig): boolean {
  return facadeCaller(headers, bailian) !== undefined;
}

/**
 * Gate of the facade's own JSON-RPC routes, independent of the 1.0 surface's `auth`: 401 (facadeUnauthorized)
 * without the key. Sets `c.var.principal` (and `c.var.client` for a named key).
 */
export function requireFacadeKey(bailian: BailianConfig): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const caller = facadeCaller(c.req.raw.headers, bailian);
    if (caller === undefined) {
      // Counted and logged as the facade's, not as a request of no surface.
      noteLog(c, { surface: 'v025' });
      return facadeUnauthorized();
    }
    admitCaller(c, caller);
    await next();
  };
}

/** What a caller with the 1.0 surface's credentials is told of a facade method on `POST /` (docs/surfaces.md). */
const FACADE_SERVED_AS =
  `an A2A 0.2.5/0.3 method, served by the Bailian facade, which takes its own key in the ${FACADE_KEY_HEADER} header ` +
  "(bailian.api-key), not the A2A 1.0 surface's credentials given here; an A2A 1.0 client calls SendMessage, SendStreamingMessage, GetTask";

/** Whether a call asks for no 1.x version: names another, or none where 1.0 callers must name theirs. */
const asksForV025 = (request: Request, lenientVersion: boolean): boolean =>
  !asksForV1(request) && !(lenientVersion && requestedVersion(request) === '');

/**
 * Whether a call refused before its body is read is a 0.2.5/0.3 caller's although it presents the 1.0 surface's
 * API-key header: that header is the facade's (`auth.api-key-header`'s default X-API-Key is X-API-KEY), it comes
 * without an Authorization header, and the call asks for no 1.x version. A stale Bailian key is then answered in
 * the facade's words, not with the 1.0 surface's `{"error":"Unauthorized"}`, which its 0.2.5 client reads "undefined".
 */
export function facadeKeyInSharedHeader(request: Request, apiKeyHeader: string, lenientVersion: boolean): boolean {
  return isFacadeKeyHeader(apiKeyHeader) && !request.headers.has('authorization') && asksForV025(request, lenientVersion);
}

/** Whether the 1.0 surface reads its API keys in the facade's header (`auth.api-key-header`'s default X-API-Key). */
const isFacadeKeyHeader = (apiKeyHeader: string): boolean => apiKeyHeader.toLowerCase() === FACADE_KEY_HEADER.toLowerCase();

/**
 * Whether the one credential a request presents to the 1.0 surface is the facade's key, in the X-API-KEY header they
 * share (no Authorization header): it sent none of the 1.0 surface's, and calling a 1.0 method is told whose method
 * that is (shared/jsonrpc-endpoint.ts), not that its key is wrong.
 */
export function facadeKeyAlone(headers: Headers, v1Auth: CallerAuth, bailian: BailianConfig): boolean {
  return isFacadeKeyHeader(v1Auth['api-key-header']) && !headers.has('authorization') && presentsFacadeKey(headers, bailian);
}

/** Whether a request presents one of the facade's keys (not the facade's admission of anyone without keys). */
const presentsFacadeKey = (headers: Headers, bailian: BailianConfig): boolean => facadeKeys(bailian).length > 0 && facadeAuthorized(headers, bailian);

/**
 * Whether a request's X-API-KEY holds one of the 1.0 surface's API keys, which it reads in that same header: the 1.0
 * surface's credential, none of the facade's. Worked out once (the 1.0 keys' table); compared in constant time.
 */
function v1KeyInFacadeHeader(v1Auth: CallerAuth | undefined): (headers: Headers) => boolean {
  if (!v1Auth || !isFacadeKeyHeader(v1Auth['api-key-header'])) return () => false;
  const keys = callerTable('a2a-1.0', 'api-key', v1Auth['api-key'], v1Auth['api-keys']);
  return (headers) => matchingCaller(headers.get(FACADE_KEY_HEADER), keys) !== undefined;
}

/** What the facade's gate on `POST /` reads of the 1.0 surface it shares that endpoint with. */
export interface SharedWithV1 {
  /** `lenient-version`: 1.0 callers may send no A2A-Version, so a call without one is no sign of 0.2.5. */
  lenientVersion?: boolean;
  /** The 1.0 surface's credentials (`auth`): a 1.0 API key in X-API-KEY is sent to it, not to the facade. */
  v1Auth?: CallerAuth;
}

/** The same gate for the facade's dialect on the `POST /` endpoint it shares with the 1.0 surface. */
export function guardedByFacadeKey(dialect: JsonRpcDialect, bailian: BailianConfig, shared: SharedWithV1 = {}): JsonRpcDialect {
  const lenientVersion = shared.lenientVersion ?? false;
  const v1Key = v1KeyInFacadeHeader(shared.v1Auth);
  return guardedDialect(dialect, requireFacadeKey(bailian), (headers) => facadeAuthorized(headers, bailian), {
    servedAs: FACADE_SERVED_AS,
    presents: (headers) => presentsFacadeKey(headers, bailian),
    // Bailian sends its key alone; a request with an Authorization header too is told by the 1.0 dialect.
    // Without credentials, a call that asks for no 1.x version is a 0.2.5/0.3 caller's (the 1.0 spec reads none as 0.3),
    // but one that names none under lenient-version, which lets 1.0 callers send none, may be either: the endpoint's.
    meantBy: (request) => (request.headers.has(FACADE_KEY_HEADER) || asksForV025(request, lenientVersion) ? 'v025' : undefined),
    // A 1.0 API key in the header both read is the 1.0 surface's: it is told whose method it called, as a 1.0 token is.
    sentNone: (headers) => !headers.has(FACADE_KEY_HEADER) || v1Key(headers),
    unauthorized: facadeUnauthorized,
  });
}
