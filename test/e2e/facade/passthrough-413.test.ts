/**
 * In front of a 0.2.5 agent the facade relays its callers' calls as they are; an agent (or its express
 * body parser) that refuses one as too large answers HTTP 413 with express's HTML error page. The caller
 * gets -32602 (InvalidParams) in the method's shape, saying the agent refused the request as too large:
 * its request is what to change, and sending it again as it is would fail again. Before, it was the
 * facade's -32006 "The upstream agent answered HTTP 413", as for a proxy's 502.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { openStream, rpc, sdkParams, startRelayingFacadeGateway } from '../../support/facade.js';
import { raw, startFakeV025, type FakeV025 } from '../../support/fake-v025.js';

const EXPRESS_413_PAGE =
  '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n' +
  '<pre>PayloadTooLargeError: request entity too large<br> &nbsp; &nbsp;at readStream (/srv/agent/node_modules/raw-body/index.js:163:17)</pre>\n' +
  '</body>\n</html>\n';

const TOO_LARGE = {
  code: -32602,
  message:
    'The upstream agent refused the request as too large (HTTP 413): send a smaller message (less text, fewer or smaller files, less metadata)',
};

let agent: FakeV025;
let gateway: RunningGateway;

beforeAll(async () => {
  const refuse = (_call: unknown, res: Parameters<typeof raw>[0]) => raw(res, 413, 'text/html; charset=utf-8', EXPRESS_413_PAGE);
  agent = await startFakeV025({ rpc: { 'message/send': refuse, 'message/stream': refuse } });
  gateway = await startRelayingFacadeGateway({ upstream: { url: agent.url } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

describe('a relayed call the 0.2.5 agent refuses as too large (HTTP 413)', () => {
  it('message/send: -32602 as a JSON error envelope, HTTP 200, the caller’s id', async () => {
    const answer = await rpc(gateway.url, 'message/send', sdkParams('big'), { id: 'send-413' });
    expect(answer.status).toBe(200);
    expect(answer.body).toStrictEqual({ jsonrpc: '2.0', id: 'send-413', error: TOO_LARGE });
    expect(answer.text).not.toMatch(/node_modules|PayloadTooLarge/);
  });

  it('message/stream: -32602 as one SSE frame', async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('big'), { id: 'stream-413' });
    expect(stream.response.status).toBe(200);
    expect((await stream.rest()).map((frame) => frame.json)).toStrictEqual([{ jsonrpc: '2.0', id: 'stream-413', error: TOO_LARGE }]);
  });
});
