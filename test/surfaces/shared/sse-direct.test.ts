import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { connect, type AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { A2AError } from '../../../src/model/index.js';
import { onBodyEnd, replaceResponse } from '../../../src/observability/body-end.js';
import { sseResponse, type SseFrame } from '../../../src/surfaces/shared/sse.js';
import { withDirectSse } from '../../../src/surfaces/shared/sse-direct.js';

let server: ServerType | undefined;
afterEach(async () => {
  const closing = server as import('node:http').Server | undefined;
  const closed = new Promise<void>((resolve) => (closing ? closing.close(() => resolve()) : resolve()));
  closing?.closeAllConnections();
  await closed;
  server = undefined;
});

/** Serves `app` like startGateway does (with or without the direct writer); resolves to its origin. */
async function listen(app: Hono, direct: boolean): Promise<string> {
  return new Promise((resolve) => {
    server = serve({ fetch: direct ? withDirectSse(app.fetch) : app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
  });
}

async function* frames(count: number, data = 'x'): AsyncGenerator<SseFrame> {
  for (let i = 0; i < count; i++) yield { data: `${data}${i}` };
}

/** Frames a loop turn apart: each is written on its own, after the head. */
async function* pacedFrames(count: number, data: string): AsyncGenerator<SseFrame> {
  for (let i = 0; i < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    yield { data: `${data}${i}` };
  }
}

/** What a caller of HTTP/`version` reads of /s off the wire: the head, and the body with its chunk framing if any. */
async function rawAnswer(origin: string, version: '1.0' | '1.1'): Promise<{ head: string; body: string }> {
  const { port, hostname } = new URL(origin);
  const socket = connect(Number(port), hostname);
  socket.write(`GET /s HTTP/${version}\r\nHost: x\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) {
    chunks.push(chunk as Buffer);
    // The SSE head asks for keep-alive: a chunked body is read to its last chunk, not to the connection's end.
    if (version === '1.1' && Buffer.concat(chunks).toString('latin1').endsWith('\r\n0\r\n\r\n')) break;
  }
  socket.destroy();
  const answer = Buffer.concat(chunks).toString('utf8');
  const end = answer.indexOf('\r\n\r\n');
  return { head: answer.slice(0, end + 2), body: answer.slice(end + 4) };
}

/** An app whose /s answers an SSE stream behind a middleware that observes it, as the metrics do. */
function streamingApp(
  source: () => AsyncIterable<SseFrame>,
  options: { onCancel?: () => void; onError?: (error: unknown) => SseFrame | undefined } = {},
) {
  const made: Response[] = [];
  const observed = { first: 0, end: 0 };
  const app = new Hono();
  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('x-request-id', 'r1');
    replaceResponse(
      c,
      onBodyEnd(
        c.res,
        () => (observed.end += 1),
        () => (observed.first += 1),
      ),
    );
  });
  app.get('/s', () => {
    const response = sseResponse(source(), { keepaliveMs: 0, comment: 'accepted', onError: () => undefined, ...options });
    made.push(response);
    return response;
  });
  return { app, made, observed };
}

describe('SSE written straight to the Node response', () => {
  it('sends the head, the comment and every frame without reading the web body; middleware headers and observers still apply', async () => {
    const { app, made, observed } = streamingApp(() => frames(3));
    const origin = await listen(app, true);
    const answer = await request(`${origin}/s`);
    expect(answer.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(answer.headers['x-request-id']).toBe('r1');
    expect(await answer.body.text()).toBe(': accepted\n\ndata: x0\n\ndata: x1\n\ndata: x2\n\n');
    expect(made[0]!.body!.locked).toBe(false);
    await vi.waitFor(() => expect(observed).toEqual({ first: 1, end: 1 }));
  });

  it('without the direct writer the adapter reads the web body (the same bytes)', async () => {
    const { app, made } = streamingApp(() => frames(2));
    const origin = await listen(app, false);
    expect(await (await request(`${origin}/s`)).body.text()).toBe(': accepted\n\ndata: x0\n\ndata: x1\n\n');
    expect(made[0]!.body!.locked).toBe(true);
  });

  it('writes non-ASCII text as its exact UTF-8 bytes, frame after frame', async () => {
    const texts = ['你好，世界', 'café – naïve', '🙂 emoji 👋🏽 and a flag 🇨🇳', 'plain ascii'];
    async function* multiByte(): AsyncGenerator<SseFrame> {
      for (let round = 0; round < 50; round++) for (const text of texts) yield { data: `${round} ${text}` };
    }
    const { app } = streamingApp(multiByte);
    const origin = await listen(app, true);
    const received = Buffer.from(await (await request(`${origin}/s`)).body.arrayBuffer());
    const frames = Array.from({ length: 50 }, (_, round) => texts.map((text) => `data: ${round} ${text}\n\n`).join('')).join('');
    expect(received.equals(Buffer.from(`: accepted\n\n${frames}`, 'utf8'))).toBe(true);
    expect(received.toString('utf8')).toContain('data: 49 🙂 emoji 👋🏽 and a flag 🇨🇳\n\n');
  });

  it('sends each later frame as one chunk of the chunked body, byte for byte what the response would frame', async () => {
    const { app } = streamingApp(() => pacedFrames(3, 'é'));
    const { head, body } = await rawAnswer(await listen(app, true), '1.1');
    expect(head).toMatch(/\r\ntransfer-encoding: chunked\r\n/i);
    // The size of a chunk counts bytes: each "é" is two.
    expect(body).toBe('c\r\n: accepted\n\n\r\nb\r\ndata: é0\n\n\r\nb\r\ndata: é1\n\n\r\nb\r\ndata: é2\n\n\r\n0\r\n\r\n');
  });

  it('an HTTP/1.0 caller, which takes no chunked body, reads the frames unframed to the connection end', async () => {
    const { app } = streamingApp(() => pacedFrames(3, 'é'));
    const { head, body } = await rawAnswer(await listen(app, true), '1.0');
    expect(head).not.toMatch(/transfer-encoding/i);
    expect(body).toBe(': accepted\n\ndata: é0\n\ndata: é1\n\ndata: é2\n\n');
  });

  it('a source failure whose onError throws on it still ends with the frames of a plain -32603, and the upstream call is aborted', async () => {
    const onCancel = vi.fn();
    async function* failing(): AsyncGenerator<SseFrame> {
      yield { data: 'first' };
      throw new Error('boom');
    }
    const onError = (error: unknown): SseFrame => {
      if (!(error instanceof A2AError)) throw error;
      return { event: 'error', data: `${error.code} ${error.message}` };
    };
    const { app, observed } = streamingApp(failing, { onCancel, onError });
    const origin = await listen(app, true);
    const answer = await request(`${origin}/s`);
    expect(answer.statusCode).toBe(200);
    expect(await answer.body.text()).toBe(': accepted\n\ndata: first\n\nevent: error\ndata: -32603 Internal error\n\n');
    expect(onCancel).toHaveBeenCalledOnce();
    await vi.waitFor(() => expect(observed.end).toBe(1));
  });

  it('a client that hangs up cancels the source', async () => {
    const onCancel = vi.fn();
    let returned = false;
    async function* endless(): AsyncGenerator<SseFrame> {
      try {
        for (let i = 0; ; i++) {
          yield { data: `tick ${i}` };
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        returned = true;
      }
    }
    const { app, observed } = streamingApp(endless, { onCancel });
    const origin = await listen(app, true);
    const controller = new AbortController();
    const answer = await request(`${origin}/s`, { signal: controller.signal });
    for await (const chunk of answer.body) if (String(chunk).includes('tick 2')) break;
    controller.abort();
    await vi.waitFor(() => expect(onCancel).toHaveBeenCalledOnce());
    await vi.waitFor(() => expect(returned).toBe(true));
    expect(observed.end).toBe(1);
  });

  it('a client that does not read holds the source back (backpressure), then gets every frame', async () => {
    let pulled = 0;
    const big = 'y'.repeat(64 * 1024);
    async function* counted(): AsyncGenerator<SseFrame> {
      for (let i = 0; i < 2_000; i++) {
        pulled += 1;
        yield { data: `${i}:${big}` };
      }
    }
    const { app } = streamingApp(counted);
    const origin = await listen(app, true);
    const answer = await request(`${origin}/s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // 2,000 frames are 128 MiB: without backpressure they would all be pulled by now.
    expect(pulled).toBeLessThan(200);
    let received = 0;
    for await (const chunk of answer.body) received += (chunk as Buffer).length;
    expect(pulled).toBe(2_000);
    expect(received).toBeGreaterThan(2_000 * big.length);
  });
});
