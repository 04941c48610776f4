import { describe, expect, it } from 'vitest';
import { sanitizeUpstreamText } from '../src/scrub-text.js';

describe('sanitizeUpstreamText', () => {
  it('redacts a key under its header name, written as a header or as JSON', () => {
    for (const text of ['x-api-key: live-key-123456', 'X-API-Key=live-key-123456', '{"x-api-key":"live-key-123456"}', 'api-key: live-key-123456']) {
      expect(sanitizeUpstreamText(text), text).not.toContain('live-key-123456');
    }
  });

  it('redacts cookies, private keys and JSON Web Tokens whatever names them', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVl';
    const text = `cookie: session=abcdef123456; private_key: MIIEvQIBADANBgkq; upstream refused ${jwt}`;
    const safe = sanitizeUpstreamText(text);
    for (const secret of ['abcdef123456', 'MIIEvQIBADANBgkq', jwt]) expect(safe).not.toContain(secret);
  });

  it('cuts a stack trace whose line breaks are written out, as in a repr or a JSON text', () => {
    const js = String.raw`Error: boom\n    at foo (/app/dist/a.js:1:2)\n    at bar (/app/dist/b.js:3:4)`;
    expect(sanitizeUpstreamText(js)).toBe('Error: boom');
    const python = String.raw`Traceback (most recent call last):\n  File "/srv/app/main.py", line 3, in <module>\nValueError: bad input`;
    expect(sanitizeUpstreamText(python)).toBe('ValueError: bad input');
    expect(sanitizeUpstreamText('Error: boom\r    at foo (/app/dist/a.js:1:2)')).toBe('Error: boom');
  });

  it('hides a relative path that says it is one', () => {
    expect(sanitizeUpstreamText('cannot read ./src/config/local.yaml')).toBe('cannot read [path]');
    expect(sanitizeUpstreamText('see ../app/main.py for details')).toBe('see [path] for details');
  });

  it('leaves names that only point at a secret, URLs and prose as they are', () => {
    const text = 'api_key_id: k-1, token_count: 3, see https://example.com/docs/./a and/or the key rotation guide';
    expect(sanitizeUpstreamText(text)).toBe(text);
  });
});
