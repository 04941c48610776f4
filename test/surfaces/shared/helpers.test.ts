import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { cacheableJson, etagMatches } from '../../../src/surfaces/shared/cacheable-json.js';
import { publicBaseUrl } from '../../../src/surfaces/shared/public-url.js';
import { safeEqual } from '../../../src/surfaces/shared/safe-equal.js';

describe('safeEqual', () => {
  it.each([
    ['secret', 'secret', true],
    ['secret', 'secreT', false],
    ['secret', 'secret-longer', false],
    ['', '', true],
    ['', 'x', false],
    ['ключ', 'ключ', true],
  ])('%j vs %j → %s', (a, b, expected) => {
    expect(safeEqual(a, b)).toBe(expected);
  });
});

describe('publicBaseUrl', () => {
  const request = (headers: Record<string, string> = {}) => new Request('http://gw.internal:8080/x/y?z=1', { headers });

  it('prefers public-url and strips trailing slashes', () => {
    const config = defaultConfig({ 'public-url': 'https://agents.example.com/a2a/', 'trust-proxy': true });
    expect(publicBaseUrl(request({ 'x-forwarded-host': 'evil.example' }), config)).toBe('https://agents.example.com/a2a');
  });

  it("uses the request's own origin by default and ignores X-Forwarded-* without trust-proxy", () => {
    const config = defaultConfig();
    expect(publicBaseUrl(request(), config)).toBe('http://gw.internal:8080');
    expect(publicBaseUrl(request({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }), config)).toBe('http://gw.internal:8080');
  });

  it('honours the first X-Forwarded-Proto/Host values with trust-proxy', () => {
    const config = defaultConfig({ 'trust-proxy': true });
    const headers = { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'public.example.com, proxy.local' };
    expect(publicBaseUrl(request(headers), config)).toBe('https://public.example.com');
    expect(publicBaseUrl(request({ 'x-forwarded-host': 'public.example.com:8443' }), config)).toBe('http://public.example.com:8443');
    expect(publicBaseUrl(request({ 'x-forwarded-proto': 'HTTPS' }), config)).toBe('https://gw.internal:8080');
  });

  it('ignores forwarded values that are not a protocol or a plain host', () => {
    const config = defaultConfig({ 'trust-proxy': true });
    const headers = { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example/"><script>' };
    expect(publicBaseUrl(request(headers), config)).toBe('http://gw.internal:8080');
  });
});

describe('cacheableJson', () => {
  const body = { name: 'card', nested: { ünïcode: true } };
  const lastModified = new Date('2026-03-01T10:00:00.000Z');
  const text = JSON.stringify(body);
  const etag = `"sha256-${createHash('sha256').update(text).digest('hex')}"`;
  const get = (headers: Record<string, string> = {}) => cacheableJson(new Request('http://x/', { headers }), body, lastModified);

  afterEach(() => vi.restoreAllMocks());

  it('serves compact JSON with cache headers and a strong sha256 ETag of the bytes', async () => {
    const response = get();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    expect(response.headers.get('etag')).toBe(etag);
    expect(response.headers.get('last-modified')).toBe('Sun, 01 Mar 2026 10:00:00 GMT');
    expect(await response.text()).toBe(text);
  });

  it.each([
    ['exact', etag],
    ['a list', `"other", ${etag}`],
    ['a weak tag', `W/${etag}`],
    ['a star', '*'],
  ])('answers 304 to If-None-Match with %s', async (_name, ifNoneMatch) => {
    const response = get({ 'if-none-match': ifNoneMatch });
    expect(response.status).toBe(304);
    expect(await response.text()).toBe('');
    expect(response.headers.get('etag')).toBe(etag);
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    expect(response.headers.get('last-modified')).toBe('Sun, 01 Mar 2026 10:00:00 GMT');
  });

  it('answers 200 to a non-matching If-None-Match, even with a matching If-Modified-Since', () => {
    const response = get({ 'if-none-match': '"sha256-0000", W/"x"', 'if-modified-since': 'Sun, 01 Mar 2026 11:00:00 GMT' });
    expect(response.status).toBe(200);
    expect(etagMatches(etag.slice(0, -2) + '"', etag)).toBe(false);
  });

  it('uses If-Modified-Since when there is no If-None-Match', () => {
    expect(get({ 'if-modified-since': 'Sun, 01 Mar 2026 10:00:00 GMT' }).status).toBe(304);
    expect(get({ 'if-modified-since': 'Sun, 01 Mar 2026 09:59:59 GMT' }).status).toBe(200);
    expect(get({ 'if-modified-since': 'not a date' }).status).toBe(200);
  });

  it('serializes and hashes one object only once', () => {
    const fresh = { served: 'once' };
    const stringify = vi.spyOn(JSON, 'stringify');
    const first = cacheableJson(new Request('http://x/'), fresh, lastModified);
    const second = cacheableJson(new Request('http://x/'), fresh, lastModified);
    expect(stringify).toHaveBeenCalledTimes(1);
    expect(first.headers.get('etag')).toBe(second.headers.get('etag'));
    // A different object with the same content gets the same tag (it hashes the bytes).
    expect(cacheableJson(new Request('http://x/'), { served: 'once' }, lastModified).headers.get('etag')).toBe(first.headers.get('etag'));
  });
});
