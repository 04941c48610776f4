import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedGet } from '../../src/http/guarded-get.js';

let server: Server;
let base: string;
const asked: string[] = [];
/** When `/slow` answers: far past the 200 ms a test gives it, so a busy host cannot blur the two. */
const SLOW_MS = 10_000;

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    asked.push(path);
    if (path === '/ok') response.writeHead(200, { 'content-type': 'image/png' }).end('twelve bytes');
    else if (path === '/to-file') response.writeHead(302, { location: 'file:///etc/passwd' }).end();
    else if (path === '/to-ok') response.writeHead(307, { location: '/ok' }).end();
    else if (path === '/declared-large') response.writeHead(200, { 'content-length': '100' }).end('x'.repeat(100));
    else if (path === '/streamed-large') {
      // No content-length: the bound is met while reading.
      response.writeHead(200);
      response.write('x'.repeat(60));
      response.end('x'.repeat(60));
    } else if (path === '/slow') setTimeout(() => response.writeHead(200).end('late'), SLOW_MS);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const local = { allowPrivate: true, timeoutMs: 1_000, maxBytes: 64, accept: 'image/*' };

describe('guardedGet', () => {
  it('reads a bounded answer', async () => {
    expect((await guardedGet(`${base}/ok`, local)).toString()).toBe('twelve bytes');
  });

  it('never contacts a loopback host unless private addresses are allowed', async () => {
    const before = asked.length;
    await expect(guardedGet(`${base}/ok`, { ...local, allowPrivate: false })).rejects.toThrow('the URL must not target private or local hosts');
    expect(asked.length).toBe(before);
  });

  it('follows no redirect unless told, and checks each one it follows like the first URL', async () => {
    await expect(guardedGet(`${base}/to-ok`, local)).rejects.toThrow('the URL answered HTTP 307');
    expect((await guardedGet(`${base}/to-ok`, { ...local, maxRedirects: 1 })).toString()).toBe('twelve bytes');
    await expect(guardedGet(`${base}/to-file`, { ...local, maxRedirects: 3 })).rejects.toThrow('the URL must be http or https');
  });

  it('refuses an answer past the bound, declared or streamed', async () => {
    await expect(guardedGet(`${base}/declared-large`, local)).rejects.toThrow('the answer is larger than 64 bytes');
    await expect(guardedGet(`${base}/streamed-large`, local)).rejects.toThrow('the answer is larger than 64 bytes');
  });

  it('gives up at the time bound, and at once when the caller leaves', async () => {
    const started = Date.now();
    await expect(guardedGet(`${base}/slow`, { ...local, timeoutMs: 200 })).rejects.toThrow();
    // At 200 ms, not at the answer: half of SLOW_MS, which a busy host does not reach.
    expect(Date.now() - started).toBeLessThan(SLOW_MS / 2);
    const caller = new AbortController();
    const leaving = guardedGet(`${base}/slow`, { ...local, signal: caller.signal });
    setTimeout(() => caller.abort(), 50);
    await expect(leaving).rejects.toThrow();
  });

  it('says what went wrong without the answer body', async () => {
    await expect(guardedGet(`${base}/missing`, local)).rejects.toThrow(/^the URL answered HTTP 404$/);
  });
});
