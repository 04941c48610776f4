import type { Context } from 'hono';
import type { A2AError } from '../../model/index.js';
import type { GatewayEnv, RequestLogFields } from './env.js';
import type { JsonRpcId } from '../../protocol/jsonrpc-exact-ids.js';

export type { JsonRpcId };

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: unknown;
}

/**
 * One protocol version's JSON-RPC methods. Several dialects can share one endpoint because the
 * method grammars cannot collide: 0.2.5 uses `namespace/verb`, 1.0 uses PascalCase.
 */
export interface JsonRpcDialect {
  readonly name: string;
  handles(method: string): boolean;
  /**
   * Whether the dialect would serve a caller presenting these headers (its credentials match, or it
   * asks for none); absent: it asks for none. When no dialect admits a caller, the endpoint answers
   * 401 before reading the body, so an unauthenticated caller learns nothing from envelope errors.
   */
  admits?(headers: Headers): boolean | Promise<boolean>;
  /**
   * Hands the request the caller this dialect admitted (c.var.principal, and the client name for the log line and
   * the metrics), as its gate does for its own calls: for an answer the endpoint gives itself (an envelope error).
   */
  nameCaller?(c: Context<GatewayEnv>): Promise<void>;
  /**
   * The surface a caller no dialect admits meant, told by its headers (the request is refused before its
   * body is read): the credentials it presents, or the version it asks for; so its 401 is counted under
   * that surface. Absent, or undefined for every dialect: the endpoint's surface.
   */
  meantBy?(request: Request): RequestLogFields['surface'];
  /** The 401 of a caller refused before its body is read whom `meantBy` names this dialect's; absent: `unauthorized()`. */
  unauthorized?(): Response;
  /**
   * Whether the caller presents credentials this dialect takes (it has some, and they match; not an open
   * dialect's admission of anyone): a caller so admitted who calls another dialect's method is told whose
   * method it is (`servedAs`: what the dialect's methods are and which credentials they take) rather than
   * a 401 saying its credentials are wrong.
   */
  presents?(headers: Headers): boolean | Promise<boolean>;
  readonly servedAs?: string;
  /**
   * Whether the caller sent none of this dialect's credentials: only then is a refused caller who presents
   * another dialect's told whose method it is. One that sent this dialect's, wrong, is refused 401 as any
   * (a client refreshing an expired token on 401 must see it).
   */
  sentNone?(headers: Headers): boolean;
  handle(request: JsonRpcRequest, c: Context<GatewayEnv>): Promise<Response>;
  /**
   * The endpoint's own refusal of a request whose method it already read (JSON nested too deep), in the
   * form the method answers its errors (a 0.2.5 streaming method: one SSE frame); absent: a plain error.
   */
  refuse?(call: { id: JsonRpcId; method: string }, error: A2AError): Response;
}

export const isLegacyMethodName = (method: string): boolean => /^[a-z][A-Za-z]*(\/[A-Za-z]+)+$/.test(method);
export const isV1MethodName = (method: string): boolean => /^[A-Z][A-Za-z]+$/.test(method);
