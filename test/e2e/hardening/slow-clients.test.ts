/**
 * Slow and greedy clients: a client that sends its headers (or its body) a byte at a time is cut off
 * at `server.headers-timeout-ms` (`server.request-timeout-ms`) while everyone else is served, and
 * `server.max-connections-per-client` caps one client address: the TCP peer's connections (with
 * `trust-proxy`, the requests in flight per X-Forwarded-For client: forwarded-client-cap.test.ts).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
/** Node checks the bounds once a second; a loaded machine adds some. */
const MARGIN_MS = 2_000;

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes; resolves with what came back and when. */
function trickle(socket: Socket, text: string, everyMs: number): Promise<{ closedAfterMs: number; received: string }> {
  const started = Date.now();
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  let index = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) return;
    socket.write(text[index % text.length]!);
    index++;
  }, everyMs);
  return new Promise((resolve) => {
    socket.once('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, received });
    });
  });
}

async function healthWithin(url: string, ms: number): Promise<void> {
  const started = Date.now();
  const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(ms) });
  expect(response.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(ms);
}

describe('slowloris', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ server: { 'headers-timeout-ms': HEADERS_TIMEOUT_MS, 'request-timeout-ms': REQUEST_TIMEOUT_MS } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('headers a byte at a time: cut off at the headers bound with 408, others served meanwhile', async () => {
    const slow = await Promise.all([1, 2, 3].map(() => open(gateway.url)));
    const cut = slow.map((socket) => trickle(socket, `GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(1_000)}`, 100));
    for (let round = 0; round < 3; round++) {
      await healthWithin(gateway.url, 500);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    for (const { closedAfterMs, received } of await Promise.all(cut)) {
      expect(closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      expect(closedAfterMs).toBeLessThan(HEADERS_TIMEOUT_MS + MARGIN_MS);
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    }
  });

  it('a body a byte at a time: cut off at the request bound', async () => {
    const socket = await open(gateway.url);
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n');
    const { closedAfterMs } = await trickle(socket, '{', 100);
    expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100 - HEADERS_TIMEOUT_MS);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + MARGIN_MS);
    await healthWithin(gateway.url, 500);
  });
});

describe('connections per client address', () => {
  it('without trust-proxy: the peer address holds at most the cap, the next connection is closed at once', async () => {
    const gateway = await startTestGateway({ server: { 'max-connections-per-client': 3 } });
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) sockets.push(await open(gateway.url));
      const extra = await open(gateway.url);
      const closed = await new Promise<boolean>((resolve) => {
        extra.once('close', () => resolve(true));
        extra.on('error', () => undefined);
        extra.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
        setTimeout(() => resolve(false), 1_000);
      });
      expect(closed).toBe(true);
      sockets.pop()!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await healthWithin(gateway.url, 1_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await gateway.close();
    }
  });
});
