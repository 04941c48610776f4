import { guardedGetJson } from '../http/guarded-get.js';
import { withFields } from '../model/index.js';
import type { LookupFunction } from '../push/url-policy.js';

export interface JwksFetchOptions {
  /** Private, loopback and metadata addresses allowed (the operator's own network). */
  allowPrivate: boolean;
  timeoutMs: number;
  lookup?: LookupFunction;
  /** A private CA trusted beside the public roots (`upstream.tls.ca-file`: the agent's key server may use it too). */
  ca?: Buffer;
}

const MAX_JWKS_BYTES = 256 * 1024;

/**
 * GET a JWK Set under the push callback rules (http/guarded-get.ts), no redirects, at most 256 KiB. Throws an
 * Error whose message names what went wrong, never the body.
 */
export async function fetchJwks(raw: string, options: JwksFetchOptions): Promise<{ keys: unknown[] }> {
  const document = await guardedGetJson(
    raw,
    withFields(options, { maxBytes: MAX_JWKS_BYTES, accept: 'application/jwk-set+json, application/json' }),
    'the JWKS',
  );
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('the JWKS has no "keys" list');
  return { keys };
}
