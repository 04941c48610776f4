/**
 * A facade turn's URL images are fetched only when the turn can run: a client at its cap on turns in
 * flight (limits.*) is refused, and the gateway fetches nothing for the refused turn, so such a client
 * cannot make it download images, or hold the fetch slots every Bailian user shares, for turns that never
 * reach the agent. Below the cap the image is fetched and reaches the agent as a part.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { openStream, rpc, sdkParams, startFacadeGateway, userMessage } from '../../support/facade.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../../support/held-turns-agent.js';
import { CAP, cappedGatewayConfig, refusalText } from '../../support/turn-limits.js';

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('a small photo')]);

let imageServer: Server;
let imagesUrl: string;
/** The paths the image server was asked for. */
const asked: string[] = [];
let agent: HeldTurnsAgent;
let gateway: RunningGateway;

beforeAll(async () => {
  imageServer = createServer((request, response) => {
    asked.push(request.url ?? '/');
    response.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG);
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  imagesUrl = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
  agent = await startHeldTurnsAgent({ inputModes: ['text/plain', 'image/jpeg'] });
  gateway = await startFacadeGateway(cappedGatewayConfig(agent.url, { bailian: { 'image-urls': { 'allow-private': true } } }));
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
  await new Promise((resolve) => imageServer?.close(resolve));
});

const withImage = (text: string, path: string) => userMessage({ text, metadata: { images: [{ type: 'url', value: `${imagesUrl}${path}` }] } });

describe('URL images of a client at its turn cap', () => {
  it('are not fetched: message/send and message/stream are refused with the cap, and the image server is never asked', async () => {
    const client = new A2AClient(gateway.url);
    const streams = [client.sendMessageStream(sdkParams('hold')), client.sendMessageStream(sdkParams('hold'))];
    for (const stream of streams) await stream.next();
    try {
      const sent = await rpc(gateway.url, 'message/send', { message: withImage('look, one too many', '/refused-send.jpg') });
      expect(sent.body.error).toEqual({ code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(CAP) });
      const streamed = await openStream(`${gateway.url}/stream`, 'message/stream', { message: withImage('look, streamed', '/refused-stream.jpg') });
      expect((await streamed.rest()).map((frame) => frame.json.error)).toEqual([
        { code: GatewayErrorCode.TooManyTurnsInFlight, message: refusalText(CAP) },
      ]);
      expect(asked).toEqual([]);
      expect(agent.held()).toHaveLength(2);
    } finally {
      for (const turn of agent.held()) turn.complete();
      for (const stream of streams) await stream.return(undefined);
    }
  });

  it('below the cap: the image is fetched and reaches the agent as a part', async () => {
    const streamed = await openStream(`${gateway.url}/stream`, 'message/stream', { message: withImage('look at this', '/welcome.jpg') });
    try {
      const [turn] = await agent.waitForHeld(1);
      expect(turn!.text).toBe('look at this');
      expect(turn!.mediaTypes).toEqual(['image/jpeg']);
      expect(asked).toEqual(['/welcome.jpg']);
    } finally {
      for (const turn of agent.held()) turn.complete();
      await streamed.rest();
    }
  });
});
