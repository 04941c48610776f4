import { rootCertificates } from 'node:tls';
import { Client } from 'undici';
import { pinnedLookup } from '../push/dispatch.js';
import { resolveAndPin, validateCallbackUrl, type LookupFunction } from '../push/url-policy.js';
import { withFields } from '../model/index.js';

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
 * GET a JWK Set under the push callback rules: http(s) only, no credentials in the URL, no private or
 * local host (unless allowed), one DNS resolution whose checked address is the one connected to, no
 * redirects, a bounded body. Throws an Error whose message names what went wrong, never the body.
 */
export async function fetchJwks(raw: string, options: JwksFetchOptions): Promise<{ keys: unknown[] }> {
  const url = validateCallbackUrl(raw, options);
  const signal = AbortSignal.timeout(options.timeoutMs);
  const pin = await resolveAndPin(url, withFields(options, { signal }));
  const client = new Client(url.origin, {
    // Beside, not instead of, the public roots: the key server may as well be a public one.
    connect: {
      lookup: pinnedLookup(pin),
      timeout: options.timeoutMs,
      ...(options.ca ? { ca: [...rootCertificates, options.ca.toString('utf8')] } : {}),
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  try {
    const response = await client.request({
      method: 'GET',
      path: `${url.pathname}${url.search}`,
      headers: { accept: 'application/jwk-set+json, application/json' },
      signal,
    });
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      throw new Error(`the JWKS URL answered HTTP ${response.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > MAX_JWKS_BYTES) throw new Error('the JWKS is larger than 256 KiB');
      chunks.push(chunk);
    }
    let document: unknown;
    try {
      document = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch {
      throw new Error('the JWKS is not JSON');
    }
    const keys = (document as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) throw new Error('the JWKS has no "keys" list');
    return { keys };
  } finally {
    await client.destroy().catch(() => undefined);
  }
}
