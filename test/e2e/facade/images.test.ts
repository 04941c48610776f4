/**
 * A Bailian user's images reach the agent: Bailian sends them in `message.metadata.images` (its
 * protocol extension), never as parts, and a 1.0 agent reads images from parts. In front of a real
 * a2a-js 1.x agent whose card takes image/png and image/jpeg, what the user reads back (the agent's
 * `look` script says what it received) shows the image arrived, in message/send and message/stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { lookReply, startScriptedAgent, type RunningScriptedAgent } from '../../support/sdk-v1-scripted-agents.js';
import { openStream, results, rpc, sentText, startFacadeGateway, streamedText, userMessage } from '../../support/facade.js';

// A 1×1 PNG, a GIF header (a type the agent's card does not list) and a URL image.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from(
  'GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x00\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;',
  'latin1',
);
const IMAGES = [
  { type: 'url', value: 'https://example.com/photo.jpg' },
  { type: 'base64', value: PNG.toString('base64') },
  { type: 'base64', value: GIF.toString('base64') },
];
const lookMessage = () => userMessage({ text: 'look at this', metadata: { images: IMAGES, chatId: 'chat-7' } });

async function readBothWays(gateway: RunningGateway): Promise<{ sent: string; streamed: string }> {
  const sent = await rpc(gateway.url, 'message/send', { message: lookMessage() });
  expect(sent.body.error).toBeUndefined();
  const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: lookMessage() });
  const events = results(await stream.rest());
  expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  return { sent: sentText(sent.body.result), streamed: streamedText(events) };
}

describe('images a Bailian user attaches', () => {
  let agent: RunningScriptedAgent;
  beforeAll(async () => {
    agent = await startScriptedAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  describe('bailian.images: parts (the default)', () => {
    let gateway: RunningGateway;
    beforeAll(async () => {
      gateway = await startFacadeGateway({ upstream: { url: agent.url } });
    });
    afterAll(async () => {
      await gateway.close();
    });

    it('the PNG reaches the agent as a part, byte for byte; the URL and the GIF stay in the metadata', async () => {
      const expected = lookReply([{ filename: 'image-2.png', mediaType: 'image/png', bytes: PNG }], 2);
      const { sent, streamed } = await readBothWays(gateway);
      expect(streamed).toBe(expected);
      expect(sent).toBe(expected);
    });

    it('a message without images is relayed as before', async () => {
      const sent = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'look', metadata: { chatId: 'chat-8' } }) });
      expect(sentText(sent.body.result)).toBe(lookReply([], 0));
    });
  });

  describe('bailian.images: metadata', () => {
    let gateway: RunningGateway;
    beforeAll(async () => {
      gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { images: 'metadata' } });
    });
    afterAll(async () => {
      await gateway.close();
    });

    it('every image stays in the metadata, as Bailian sent it', async () => {
      const { sent, streamed } = await readBothWays(gateway);
      expect(streamed).toBe(lookReply([], 3));
      expect(sent).toBe(lookReply([], 3));
    });
  });
});
