import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { Credentials } from '../../src/config/credentials-schema.js';
import { credentialHeaders, credentialSecrets, requestOn } from '../../src/upstream/http.js';

const creds = (value: Record<string, unknown>): Credentials => Credentials.parse(value);

describe('credentialHeaders', () => {
  it('sends nothing without credentials', () => {
    expect(credentialHeaders(creds({}))).toEqual({});
  });

  it('sends a bearer token', () => {
    expect(credentialHeaders(creds({ token: 'tok-1' }))).toEqual({ authorization: 'Bearer tok-1' });
  });

  it('sends basic auth only when both user and password are set', () => {
    expect(credentialHeaders(creds({ 'basic-username': 'alice', 'basic-password': 's3cr:et' }))).toEqual({
      authorization: `Basic ${Buffer.from('alice:s3cr:et').toString('base64')}`,
    });
    expect(credentialHeaders(creds({ 'basic-username': 'alice' }))).toEqual({});
    expect(credentialHeaders(creds({ 'basic-password': 'x' }))).toEqual({});
  });

  it('prefers bearer over basic, like iac-code’s client', () => {
    expect(credentialHeaders(creds({ token: 't', 'basic-username': 'u', 'basic-password': 'p' }))).toEqual({
      authorization: 'Bearer t',
    });
  });

  it('sends the API key in its configured header, in addition to bearer', () => {
    expect(credentialHeaders(creds({ 'api-key': 'k1' }))).toEqual({ 'x-api-key': 'k1' });
    expect(credentialHeaders(creds({ token: 't', 'api-key': 'k1', 'api-key-header': 'X-Custom-Key' }))).toEqual({
      authorization: 'Bearer t',
      'x-custom-key': 'k1',
    });
  });

  it('lists the secrets so they can be scrubbed from upstream errors', () => {
    expect(credentialSecrets(creds({ token: 't1', 'basic-username': 'u', 'basic-password': 'p1', 'api-key': 'k1' }))).toEqual(['t1', 'p1', 'k1']);
  });
});

describe('requestOn', () => {
  it('sends the method, headers and body to the URL’s path and query on the given pool', async () => {
    const seen: Array<{ method?: string; url?: string; header?: string; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, header: req.headers['x-probe'] as string | undefined, body });
        res.end('answered');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pool = new Agent();
    try {
      const { port } = server.address() as AddressInfo;
      for (const path of ['/a2a/v1?tenant=x', '/a2a/v1?tenant=x', '/']) {
        const response = await requestOn(pool, `http://127.0.0.1:${port}${path}`, {
          method: 'POST',
          headers: { 'x-probe': 'yes' },
          body: `to ${path}`,
        });
        expect(response.statusCode).toBe(200);
        expect(await response.body.text()).toBe('answered');
      }
      expect(seen).toEqual([
        { method: 'POST', url: '/a2a/v1?tenant=x', header: 'yes', body: 'to /a2a/v1?tenant=x' },
        { method: 'POST', url: '/a2a/v1?tenant=x', header: 'yes', body: 'to /a2a/v1?tenant=x' },
        { method: 'POST', url: '/', header: 'yes', body: 'to /' },
      ]);
    } finally {
      await pool.close();
      server.close();
    }
  });
});
