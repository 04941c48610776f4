import { guardedGet } from '../guarded-get.js';
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
 * GET a JWK Set under the push callback rules (guarded-get.ts), no redirects, at most 256 KiB. Throws an
 * Error whose message names what went wrong, never the body.
 */
export async function fetchJwks(raw: string, options: JwksFetchOptions): Promise<{ keys: unknown[] }> {
  const body = await guardedGet(raw, {
    allowPrivate: options.allowPrivate,
    timeoutMs: options.timeoutMs,
    maxBytes: MAX_JWKS_BYTES,
    accept: 'application/jwk-set+json, application/json',
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.ca ? { ca: options.ca } : {}),
  });
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new Error('the JWKS is not JSON');
  }
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('the JWKS has no "keys" list');
  return { keys };
}
