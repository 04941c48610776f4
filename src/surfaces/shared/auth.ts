import type { MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { CallerCredentials, Credentials } from '../../config/credentials-schema.js';
import type { AgentCard } from '../../model/index.js';
import { clientNameOf } from '../../config/named-secrets.js';
import { admitCaller, callerOf, callerTable, matchingCaller, type Caller, type CallerTable } from './caller.js';
import type { GatewayEnv, RequestLogFields } from './env.js';
import { unauthorized } from './jsonrpc-endpoint.js';
import { noteLog } from './log-fields.js';
import { isRestPath, restUnauthenticated } from '../v1/rest-status.js';
import { AGENT_CARD_PATH, AGENT_OWN_ROUTES } from '../../gateway-routes.js';
import { V1_JSONRPC_PATH } from './v1-methods-elsewhere.js';
import { createIntrospectedCallers, type IntrospectedCallers } from './introspected-callers.js';
import { createJwtCallers, looksLikeJwt, type JwtCallers } from './jwt-callers.js';
import { principalOf } from './principal.js';
import { safeEqual } from './safe-equal.js';

interface BasicCredentials {
  username: string;
  password: string;
}

/** What callers may present: `auth` (CallerCredentials), or a plain credentials block without the lists. */
export type CallerAuth = Credentials & Partial<Pick<CallerCredentials, 'tokens' | 'api-keys' | 'jwt' | 'introspection'>>;

interface Schemes {
  tokens: CallerTable;
  /** Bearer JSON Web Tokens (`auth.jwt`). */
  jwt?: JwtCallers;
  /** Opaque Bearer tokens the provider is asked about (`auth.introspection`). */
  introspected?: IntrospectedCallers;
  basic?: BasicCredentials & { caller: Caller };
  apiKeys: CallerTable;
}

const schemesOf = new WeakMap<CallerAuth, Schemes>();

/** The schemes a credentials block turns on (iac-code: Basic only when both halves are set); worked out once per block. */
function enabledSchemes(creds: CallerAuth, logger?: Pick<Logger, 'warn' | 'debug'>): Schemes {
  let schemes = schemesOf.get(creds);
  if (!schemes) {
    const username = creds['basic-username'];
    const password = creds['basic-password'];
    schemes = {
      tokens: callerTable('a2a-1.0', 'bearer', creds.token, creds.tokens),
      jwt: creds.jwt ? createJwtCallers(creds.jwt, logger ? { logger } : {}) : undefined,
      introspected: creds.introspection ? createIntrospectedCallers(creds.introspection, logger ? { logger } : {}) : undefined,
      basic: username && password ? { username, password, caller: basicCaller(username, password) } : undefined,
      apiKeys: callerTable('a2a-1.0', 'api-key', creds['api-key'], creds['api-keys']),
    };
    schemesOf.set(creds, schemes);
  }
  return schemes;
}

/**
 * Works out the schemes of the gateway's credentials block at start, with the gateway's logger, and
 * loads the token verifier's keys: one that can load none says so there (every bearer of a token is
 * refused meanwhile).
 */
export async function prepareCallerAuth(creds: CallerAuth, logger: Pick<Logger, 'warn' | 'debug'>): Promise<void> {
  await enabledSchemes(creds, logger).jwt?.loadKeys();
}

/** The Basic caller is named by its user, which is not secret (when it makes a valid client name). */
const basicCaller = (username: string, password: string): Caller =>
  callerOf(principalOf('a2a-1.0', 'basic', `${username}:${password}`), clientNameOf(username));

/**
 * Whether the request carries a credential of the 1.0 surface at all, right or wrong: an Authorization
 * header, or its API-key header when API keys are set.
 */
export function presentsAnyCredential(headers: Headers, creds: CallerAuth): boolean {
  return headers.has('authorization') || (enabledSchemes(creds).apiKeys.secrets.length > 0 && headers.has(creds['api-key-header']));
}

export function authEnabled(creds: CallerAuth): boolean {
  const schemes = enabledSchemes(creds);
  return (
    schemes.tokens.secrets.length > 0 ||
    schemes.jwt !== undefined ||
    schemes.introspected !== undefined ||
    schemes.basic !== undefined ||
    schemes.apiKeys.secrets.length > 0
  );
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Strict base64 of `user:pass` (no stray characters, canonical padding, valid UTF-8), else undefined. */
export function decodeBasic(encoded: string): BasicCredentials | undefined {
  if (encoded.length === 0 || !BASE64.test(encoded)) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.toString('base64') !== encoded) return undefined;
  let decoded: string;
  try {
    decoded = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** `Scheme value` of an Authorization header; the scheme name is case-insensitive (RFC 9110 §11.1). */
function authorizationValue(header: string | undefined, scheme: string): string | undefined {
  if (!header || header.length <= scheme.length + 1) return undefined;
  if (header.slice(0, scheme.length).toLowerCase() !== scheme.toLowerCase() || header[scheme.length] !== ' ') {
    return undefined;
  }
  return header.slice(scheme.length + 1).trim();
}

/** The 1.0 surface's principal of the caller without gateway auth. */
export const ANONYMOUS_V1_PRINCIPAL = principalOf('a2a-1.0', 'anonymous');
/** The 1.0 surface's caller without gateway auth: unnamed. */
export const ANONYMOUS_V1_CALLER: Caller = { principal: ANONYMOUS_V1_PRINCIPAL };

/**
 * Who the caller is, or undefined when no configured scheme accepts the request. Tried in iac-code's
 * order (Bearer, Basic, API key), a configured token before a provider's (bearerCaller); the first match names
 * the principal: the 1.0 surface, the scheme and a digest of the credential that matched (see
 * principalOf; for a JWT, of its issuer and subject), never the header it came in.
 */
export async function authenticate(headers: Headers, creds: CallerAuth): Promise<Caller | undefined> {
  const schemes = enabledSchemes(creds);
  const authorization = headers.get('authorization') ?? undefined;
  const presentedBearer = authorizationValue(authorization, 'Bearer');
  const bearer = matchingCaller(presentedBearer, schemes.tokens) ?? (presentedBearer && (await bearerCaller(presentedBearer, schemes)));
  if (bearer) return bearer;
  if (schemes.basic) {
    const encoded = authorizationValue(authorization, 'Basic');
    const presented = encoded === undefined ? undefined : decodeBasic(encoded);
    if (presented) {
      // Both halves are always compared so a wrong user and a wrong password take the same time.
      const userOk = safeEqual(presented.username, schemes.basic.username);
      const passOk = safeEqual(presented.password, schemes.basic.password);
      if (userOk && passOk) return schemes.basic.caller;
    }
  }
  return matchingCaller(headers.get(creds['api-key-header']), schemes.apiKeys);
}

/**
 * A Bearer token no configured one matched: a JWT is `auth.jwt`'s to judge when that is set (one it
 * refuses is not asked about elsewhere, where its audience might go unchecked); any other token, or a JWT
 * without `auth.jwt`, is asked about at the provider (`auth.introspection`).
 */
async function bearerCaller(token: string, schemes: Schemes): Promise<Caller | undefined> {
  if (schemes.jwt && looksLikeJwt(token)) return schemes.jwt(token);
  return schemes.introspected?.(token);
}

/** Whether the 1.0 surface would serve a caller with these headers: no auth configured, or a scheme matches. */
export function admitsCaller(headers: Headers, creds: CallerAuth): boolean | Promise<boolean> {
  return !authEnabled(creds) || authenticate(headers, creds).then((caller) => caller !== undefined);
}

/** The surface a request the gate refuses was for, by its route, so its 401 is counted there; undefined: no surface's. */
function refusedSurface(method: string, path: string): RequestLogFields['surface'] {
  if (path === V1_JSONRPC_PATH) return method === 'POST' ? 'jsonrpc' : undefined;
  if (isRestPath(path) || (AGENT_OWN_ROUTES as readonly string[]).includes(path)) return 'rest';
  return path === AGENT_CARD_PATH ? 'card' : undefined;
}

/**
 * Gate for A2A routes: when any scheme is configured, one of them must match, else 401 without
 * WWW-Authenticate (as iac-code answers): on the HTTP+JSON binding's paths in its error form, a
 * google.rpc.Status `UNAUTHENTICATED` (which a2a-js 1.x reads), elsewhere (the cards, the agent's own
 * routes) `{"error":"Unauthorized"}`; counted and logged under the surface of its path. Sets
 * `c.var.principal` (and `c.var.client` for a named credential).
 */
export function requireCredentials(creds: CallerAuth): MiddlewareHandler<GatewayEnv> {
  if (!authEnabled(creds)) {
    return async (c, next) => {
      c.set('principal', ANONYMOUS_V1_PRINCIPAL);
      await next();
    };
  }
  return async (c, next) => {
    const caller = await authenticate(c.req.raw.headers, creds);
    if (caller === undefined) {
      noteLog(c, { surface: refusedSurface(c.req.method, c.req.path) });
      return isRestPath(c.req.path) ? restUnauthenticated() : unauthorized();
    }
    admitCaller(c, caller);
    await next();
  };
}

export type SecurityDescription = Required<Pick<AgentCard, 'securitySchemes' | 'securityRequirements'>>;

/**
 * The 1.0 card's security block for the gateway's own credentials: one requirement per scheme, so any
 * one is enough. Scope lists are empty (`[]`): iac-code writes `[""]`, but scopes only mean something
 * for OAuth2/OIDC, and an empty list is what the spec and the SDKs produce for other schemes.
 */
export function describeSecuritySchemes(creds: CallerAuth): SecurityDescription | undefined {
  const schemes = enabledSchemes(creds);
  const securitySchemes: SecurityDescription['securitySchemes'] = {};
  if (schemes.tokens.secrets.length > 0 || schemes.introspected) securitySchemes.bearerAuth = { httpAuthSecurityScheme: { scheme: 'bearer' } };
  if (schemes.jwt) securitySchemes.jwtAuth = { httpAuthSecurityScheme: { scheme: 'bearer', bearerFormat: 'JWT' } };
  if (schemes.basic) securitySchemes.basicAuth = { httpAuthSecurityScheme: { scheme: 'basic' } };
  if (schemes.apiKeys.secrets.length > 0) {
    securitySchemes.apiKeyAuth = { apiKeySecurityScheme: { location: 'header', name: creds['api-key-header'] } };
  }
  const names = Object.keys(securitySchemes);
  if (names.length === 0) return undefined;
  return { securitySchemes, securityRequirements: names.map((name) => ({ schemes: { [name]: { list: [] } } })) };
}
