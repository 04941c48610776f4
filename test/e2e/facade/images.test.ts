/**
 * A Bailian user's images reach the agent: Bailian sends them in `message.metadata.images` (its
 * protocol extension), never as parts, and a 1.0 agent reads images from parts. In front of a real
 * a2a-js 1.x agent whose card takes image/png and image/jpeg, what the user reads back (the agent's
 * `look` script says what it received) shows the image arrived, in message/send and message/stream.
 * URL images are fetched from a local image server, which also counts what it was asked for.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { lookReply, startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

// A 1×1 PNG, a GIF header (a type the agent's card does not list) and a URL image.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from(
  'GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;',
  'latin1',
);
// A JPEG (its signature and a few bytes) the image server hands out at its signed /photo.jpg link.
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('a small photo')]);

interface ImageServer {
  url: string;
  asked: string[];
  /** Holds /slow.jpg back until the function it returns is called. */
  holdSlow(): () => void;
  close(): Promise<void>;
}

/**
 * Serves /photo.jpg?signature=secret-token (a signed link), /slow.jpg (the photo, once let go), /page.html
 * (not an image), /big.jpg (past a bound), /hop/<n> (redirects n times, then to the photo); anything else
 * is a 404.
 */
async function startImageServer(): Promise<ImageServer> {
  const asked: string[] = [];
  let slow = Promise.resolve();
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '/';
    asked.push(path);
    const hop = /^\/hop\/(\d+)$/.exec(path);
    if (hop) {
      const left = Number(hop[1]);
      response.writeHead(302, { location: left > 1 ? `/hop/${left - 1}` : '/photo.jpg?signature=secret-token' }).end();
    } else if (path === '/photo.jpg?signature=secret-token') {
      response.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG);
    } else if (path === '/slow.jpg') {
      void slow.then(() => response.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG));
    } else if (path === '/page.html') {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>not an image</html>');
    } else if (path === '/big.jpg') {
      response.writeHead(200, { 'content-type': 'image/jpeg' }).end(Buffer.concat([JPEG, Buffer.alloc(4096)]));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const holdSlow = (): (() => void) => {
    let release!: () => void;
    slow = new Promise((resolve) => (release = resolve));
    return release;
  };
  return { url: `http://127.0.0.1:${port}`, asked, holdSlow, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** `promise`, or a failure saying `what` did not happen within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

let images: ImageServer;
const photoUrl = () => `${images.url}/photo.jpg?signature=secret-token`;
const IMAGES = () => [
  { type: 'url', value: photoUrl() },
  { type: 'base64', value: PNG.toString('base64') },
  { type: 'base64', value: GIF.toString('base64') },
];
const lookMessage = (list: unknown[] = IMAGES(), contextId?: string) =>
  userMessage({ text: 'look at this', metadata: { images: list, chatId: 'chat-7' }, ...(contextId ? { contextId } : {}) });

/** Calls the gateway made to the agent, all methods and outcomes. */
async function upstreamCalls(gatewayUrl: string): Promise<number> {
  const metrics = await (await fetch(`${gatewayUrl}/metrics`)).text();
  return [...metrics.matchAll(/^a2a_bridge_upstream_requests_total\{[^}]*\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

async function readBothWays(gateway: { url: string }, list?: unknown[]): Promise<{ sent: string; streamed: string }> {
  const sent = await rpc(gateway.url, 'message/send', { message: lookMessage(list) });
  expect(sent.body.error).toBeUndefined();
  const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: lookMessage(list) });
  const events = results(await stream.rest());
  expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  return { sent: sentText(sent.body.result), streamed: streamedText(events) };
}

describe('images a Bailian user attaches', () => {
  let agent: RunningScriptedAgent;
  beforeAll(async () => {
    agent = await startScriptedAgent();
    images = await startImageServer();
  });
  afterAll(async () => {
    await agent.close();
    await images.close();
  });

  describe('bailian.images: parts (the default)', () => {
    let gateway: TestGateway;
    beforeAll(async () => {
      gateway = await startTestGateway({ 'keepalive-ms': 0, upstream: { url: agent.url } });
    });
    afterAll(async () => {
      await gateway.close();
    });

    it('the PNG reaches the agent as a part, byte for byte; the GIF stays in the metadata, and so does a URL on a private address, never fetched', async () => {
      const expected = lookReply([{ filename: 'image-2.png', mediaType: 'image/png', bytes: PNG }], 2);
      const asked = images.asked.length;
      const { sent, streamed } = await readBothWays(gateway);
      expect(streamed).toBe(expected);
      expect(sent).toBe(expected);
      expect(images.asked.length).toBe(asked);
      // The operator learns why, by the image's origin: never its path or query, which may hold a signature.
      const refused = gateway.log().filter((line) => line.msg === 'an image URL Bailian sent was not fetched');
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]).toMatchObject({ imageOrigin: images.url, reason: 'the URL must not target private or local hosts' });
      expect(JSON.stringify(gateway.log())).not.toContain('secret-token');
      // And counts it: one refusal for message/send, one for message/stream.
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      const refusals = Number(/a2a_bridge_bailian_image_fetches_total\{outcome="refused"\} (\d+)/.exec(metrics)?.[1] ?? 0);
      expect(refusals).toBeGreaterThanOrEqual(2);
    });

    it('a photo sent without words reaches the agent (no "the message text is empty"); no words and no image is still refused', async () => {
      const photoOnly = () => userMessage({ text: '', metadata: { images: [{ type: 'base64', value: PNG.toString('base64') }] } });
      const expected = lookReply([{ filename: 'image-1.png', mediaType: 'image/png', bytes: PNG }], 0);
      const sent = await rpc(gateway.url, 'message/send', { message: photoOnly() });
      expect(sent.body.error).toBeUndefined();
      expect(sentText(sent.body.result)).toBe(expected);
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: photoOnly() });
      expect(streamedText(results(await stream.rest()))).toBe(expected);
      const nothing = await rpc(gateway.url, 'message/send', { message: userMessage({ text: ' ', metadata: { images: [] } }) });
      expect(nothing.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('the message text is empty') });
      // Images none of which reaches the agent (a type its card does not take, a URL on a private address): still refused,
      // saying why: "the message text is empty" alone told the user who sent a photo that they had sent nothing.
      for (const list of [[{ type: 'base64', value: GIF.toString('base64') }], [{ type: 'url', value: `${images.url}/photo.jpg` }]]) {
        const unseen = await rpc(gateway.url, 'message/send', { message: userMessage({ text: '', metadata: { images: list } }) });
        expect(unseen.body.error, JSON.stringify(list)).toMatchObject({
          code: -32602,
          message:
            'Invalid params: message.parts: the message text is empty, and none of its images reaches the agent (its card takes none of their types, or their URL could not be fetched)',
        });
      }
    });

    it('a message without images is relayed as before', async () => {
      const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'look', metadata: { chatId: 'chat-8' } }) });
      expect(sentText(sent.body.result)).toBe(lookReply([], 0));
    });
  });

  describe("bailian.image-urls on the operator's own network (allow-private)", () => {
    let gateway: TestGateway;
    beforeAll(async () => {
      gateway = await startTestGateway({
        'keepalive-ms': 0,
        upstream: { url: agent.url },
        bailian: { 'image-urls': { 'allow-private': true, 'max-bytes': 1024, 'max-images': 5 } },
      });
    });
    afterAll(async () => {
      await gateway.close();
    });

    it('a URL image is fetched and reaches the agent as a part, byte for byte, beside the base64 one', async () => {
      const expected = lookReply(
        [
          { filename: 'image-1.jpg', mediaType: 'image/jpeg', bytes: JPEG },
          { filename: 'image-2.png', mediaType: 'image/png', bytes: PNG },
        ],
        1,
      );
      const { sent, streamed } = await readBothWays(gateway);
      expect(streamed).toBe(expected);
      expect(sent).toBe(expected);
    });

    it('redirects are followed up to three; what is not an image, too large, missing or too far stays in the metadata', async () => {
      const list = [
        { type: 'url', value: `${images.url}/hop/3` },
        { type: 'url', value: `${images.url}/page.html` },
        { type: 'url', value: `${images.url}/big.jpg` },
        { type: 'url', value: `${images.url}/missing.jpg` },
        { type: 'url', value: `${images.url}/hop/4` },
      ];
      const expected = lookReply([{ filename: 'image-1.jpg', mediaType: 'image/jpeg', bytes: JPEG }], 4);
      const { sent, streamed } = await readBothWays(gateway, list);
      expect(streamed).toBe(expected);
      expect(sent).toBe(expected);
    });

    it('a message/stream answer opens while its URL image is still being fetched; the image then reaches the agent', async () => {
      const release = images.holdSlow();
      try {
        const list = [{ type: 'url', value: `${images.url}/slow.jpg` }];
        // The image timeout (10 s) is longer than this wait: only an answer that opens before the image comes passes.
        const stream = await within(openStream(`${gateway.url}/stream`, 'message/stream', { message: lookMessage(list) }), 5000, 'no stream head');
        expect(stream.response.status).toBe(200);
        release();
        const events = results(await stream.rest());
        expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
        expect(streamedText(events)).toBe(lookReply([{ filename: 'image-1.jpg', mediaType: 'image/jpeg', bytes: JPEG }], 0));
      } finally {
        release();
      }
    });

    it('a caller that leaves while its URL image is fetched starts no upstream call, and its context is free again', async () => {
      const release = images.holdSlow();
      const contextId = 'ctx-left-while-fetching';
      try {
        const before = await upstreamCalls(gateway.url);
        const list = [{ type: 'url', value: `${images.url}/slow.jpg` }];
        const stream = await within(
          openStream(`${gateway.url}/stream`, 'message/stream', { message: lookMessage(list, contextId) }),
          5000,
          'no stream head',
        );
        stream.abort();
        await new Promise((resolve) => setTimeout(resolve, 100));
        release();
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await upstreamCalls(gateway.url)).toBe(before);
        const next = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'look', contextId, metadata: { chatId: 'chat-9' } }) });
        expect(next.body.error).toBeUndefined();
        expect(sentText(next.body.result)).toBe(lookReply([], 0));
      } finally {
        release();
      }
    });
  });

  describe('bailian.images: metadata', () => {
    let gateway: { url: string; close(): Promise<void> };
    beforeAll(async () => {
      gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { images: 'metadata' } });
    });
    afterAll(async () => {
      await gateway.close();
    });

    it('every image stays in the metadata, as Bailian sent it, and no URL is fetched', async () => {
      const asked = images.asked.length;
      const { sent, streamed } = await readBothWays(gateway);
      expect(images.asked.length).toBe(asked);
      expect(streamed).toBe(lookReply([], 3));
      expect(sent).toBe(lookReply([], 3));
    });
  });
});
