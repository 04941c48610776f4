import { guardedGet } from '../guarded-get.js';
import type { LookupFunction } from '../push/url-policy.js';

export interface DiscoveryOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  lookup?: LookupFunction;
}

const MAX_CONFIGURATION_BYTES = 64 * 1024;

/**
 * The JWKS URL an OpenID provider publishes for `issuer` (OpenID Connect Discovery 1.0 §4: the
 * `jwks_uri` of `<issuer>/.well-known/openid-configuration`), read under the push callback address rules
 * like the JWKS itself. The document must name the same issuer (§4.3), so a misconfigured or hostile
 * document cannot point the gateway at another provider's keys. Throws an Error naming what is wrong.
 */
export async function discoverJwksUrl(issuer: string, options: DiscoveryOptions): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const body = await guardedGet(url, {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs,
    maxBytes: MAX_CONFIGURATION_BYTES,
    accept: 'application/json',
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  let document: { issuer?: unknown; jwks_uri?: unknown };
  try {
    document = (JSON.parse(body.toString('utf8')) ?? {}) as typeof document;
  } catch {
    throw new Error('the OpenID configuration is not JSON');
  }
  if (document.issuer !== issuer) throw new Error('the OpenID configuration names another issuer');
  const jwksUri = document.jwks_uri;
  if (typeof jwksUri !== 'string' || !/^https?:\/\//.test(jwksUri)) throw new Error('the OpenID configuration has no http(s) jwks_uri');
  return jwksUri;
}
