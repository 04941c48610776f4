import { guardedGetJson } from '../http/guarded-get.js';
import { withFields } from '../model/index.js';
import type { JwksFetchOptions } from './jwks-fetch.js';

const MAX_CONFIGURATION_BYTES = 64 * 1024;

/**
 * The JWKS URL an OpenID provider publishes for `issuer` (OpenID Connect Discovery 1.0 §4: the
 * `jwks_uri` of `<issuer>/.well-known/openid-configuration`), read under the push callback address rules
 * like the JWKS itself. The document must name the same issuer (§4.3), so a misconfigured or hostile
 * document cannot point the gateway at another provider's keys. Throws an Error naming what is wrong.
 */
export async function discoverJwksUrl(issuer: string, options: JwksFetchOptions): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const document = (await guardedGetJson(
    url,
    withFields(options, { maxBytes: MAX_CONFIGURATION_BYTES, accept: 'application/json' }),
    'the OpenID configuration',
  )) as { issuer?: unknown; jwks_uri?: unknown } | null;
  if (document?.issuer !== issuer) throw new Error('the OpenID configuration names another issuer');
  const jwksUri = document.jwks_uri;
  if (typeof jwksUri !== 'string' || !/^https?:\/\//.test(jwksUri)) throw new Error('the OpenID configuration has no http(s) jwks_uri');
  return jwksUri;
}
