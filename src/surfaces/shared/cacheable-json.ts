import { createHash } from 'node:crypto';
import { withFields } from '../../model/index.js';

interface Serialized {
  text: string;
  etag: string;
}

// The card is served on every discovery call but changes rarely: hash it once per object (or string).
const byObject = new WeakMap<object, Serialized>();
const byString = new Map<string, Serialized>();
const MAX_STRINGS = 64;

function serialize(body: unknown): Serialized {
  if (typeof body === 'object' && body !== null) {
    const cached = byObject.get(body);
    if (cached) return cached;
    const fresh = hashed(JSON.stringify(body));
    byObject.set(body, fresh);
    return fresh;
  }
  const text = JSON.stringify(body) ?? 'null';
  const cached = byString.get(text);
  if (cached) return cached;
  const fresh = hashed(text);
  if (byString.size >= MAX_STRINGS) byString.delete(byString.keys().next().value as string);
  byString.set(text, fresh);
  return fresh;
}

function hashed(text: string): Serialized {
  return { text, etag: `"sha256-${createHash('sha256').update(text, 'utf8').digest('hex')}"` };
}

const ENTITY_TAG = /(?:W\/)?"[^"]*"|\*/g;

/** If-None-Match (RFC 9110 §13.1.2): a list of entity tags or `*`, compared weakly. */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  for (const [candidate] of ifNoneMatch.matchAll(ENTITY_TAG)) {
    if (candidate === '*') return true;
    if ((candidate.startsWith('W/') ? candidate.slice(2) : candidate) === etag) return true;
  }
  return false;
}

/** If-Modified-Since is only consulted without If-None-Match (RFC 9110 §13.1.3), to whole seconds. */
function notModifiedSince(ifModifiedSince: string, lastModified: Date): boolean {
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}

/**
 * A compact JSON response that HTTP caches can keep: `Cache-Control: public, max-age=60`, a strong
 * `ETag: "sha256-<hex>"` of the served bytes and `Last-Modified`; a matching conditional request gets
 * `304` with an empty body and the same three headers.
 */
export function cacheableJson(request: Request, body: unknown, lastModified: Date): Response {
  const { text, etag } = serialize(body);
  const headers: Record<string, string> = {
    'cache-control': 'public, max-age=60',
    etag,
    'last-modified': lastModified.toUTCString(),
  };
  const ifNoneMatch = request.headers.get('if-none-match');
  const ifModifiedSince = request.headers.get('if-modified-since');
  const notModified =
    ifNoneMatch !== null ? etagMatches(ifNoneMatch, etag) : ifModifiedSince !== null && notModifiedSince(ifModifiedSince, lastModified);
  if (notModified) return new Response(null, { status: 304, headers });
  return new Response(text, { status: 200, headers: withFields(headers, { 'content-type': 'application/json' }) });
}
