/**
 * What the direct SSE writer tells the stream of the frames it wrote (SseOptions.onWritten, onLeftAtEnd): what a
 * Bailian user is later told they read (cut-turns.ts). A frame the agent's next event made after the caller hung
 * up, before the gateway saw it, is written to no one and must not count as read.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { sseResponse, type SseFrame } from '../../../src/surfaces/shared/sse.js';
import type { SseOptions } from '../../../src/surfaces/shared/sse-channel.js';
import { withDirectSse } from '../../../src/surfaces/shared/sse-direct.js';
import { waitUntil } from '../../support/wait-until.js';

let server: ServerType | undefined;
afterEach(async () => {
  const closing = server as import('node:http').Server | undefined;
  const closed = new Promise<void>((resolve) => (closing ? closing.close(() => resolve()) : resolve()));
  closing?.closeAllConnections();
  await closed;
  server = undefined;
});

/** Serves one SSE stream of `source` through the direct writer; its origin and what the writer told. */
async function serveStream(source: (hungUp: Promise<void>) => AsyncIterable<SseFrame>) {
  const told = { written: [] as (number | undefined)[], leftAtEnd: 0, canceled: 0 };
  let hangUp!: () => void;
  const hungUp = new Promise<void>((resolve) => (hangUp = resolve));
  const options: SseOptions = {
    keepaliveMs: 0,
    onError: () => undefined,
    onCancel: () => void told.canceled++,
    onWritten: (frame) => void told.written.push(frame.mark),
    onLeftAtEnd: () => void told.leftAtEnd++,
  };
  const app = new Hono().get('/s', () => sseResponse(source(hungUp), options));
  const origin = await new Promise<string>((resolve) => {
    server = serve({ fetch: withDirectSse(app.fetch), hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
  });
  /** Reads the stream, hanging up (destroying the socket) the moment what it read holds `until`. */
  const readUntil = (until: string): Promise<string> =>
    new Promise((resolve) => {
      const req = request(`${origin}/s`, (res) => {
        let read = '';
        res.on('data', (chunk) => {
          read += chunk;
          if (!read.includes(until)) return;
          req.destroy();
          hangUp();
          resolve(read);
        });
      });
      req.on('error', () => undefined);
      req.end();
    });
  return { told, readUntil };
}

it('a frame made right after the caller hung up is not told as written', async () => {
  const { told, readUntil } = await serveStream(async function* (hungUp) {
    yield { data: 'first', mark: 1 };
    await hungUp;
    // The agent's next event, come the moment the caller left: before the gateway could have read its hang-up.
    yield { data: 'second', mark: 2 };
    await new Promise(() => undefined);
  });
  expect(await readUntil('first')).not.toContain('second');
  await waitUntil(async () => told.canceled === 1);
  expect(told.written.filter((mark) => mark === 2)).toEqual([]);
});
