/**
 * `server.max-connections-per-client` behind a trusted proxy (`trust-proxy`): the requests in flight
 * per X-Forwarded-For client, counted before any surface reads the call. The request past the cap is
 * refused in its caller's protocol, as each official client reads it: a 1.0 JSON-RPC error and an
 * HTTP+JSON RESOURCE_EXHAUSTED (a2a-js 1.x), a 0.2.5 error on message/send and one error frame on
 * message/stream (a2a-js 0.2.5, and plain fetch as Bailian's side would post); other clients are
 * unaffected, and a closed stream frees its place.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AError, GatewayErrorCode } from '../../../src/model/index.js';
import { openStream, rpc, sdkParams } from '../../support/facade.js';
import { startFaultyAgent, type FaultyAgent } from '../../support/faulty-agent.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { connect, rejectionOf, sendRequest } from '../../support/sdk-v1-client.js';
import { openLiveStream, type LiveStream } from './support.js';

const CAP = 2;
const REFUSAL = A2AError.tooManyRequestsInFlight(CAP).message;
const CAPPED = '203.0.113.7';
const forwardedFor = (client: string): Record<string, string> => ({ 'x-forwarded-for': `10.9.9.9, ${client}` });

let agent: FaultyAgent;
let gateway: TestGateway;
const streams: LiveStream[] = [];

/** A 1.0 stream the agent keeps open and quiet, from `client`. */
function holdStream(client: string): Promise<LiveStream> {
  const body = JSON.stringify({ message: { messageId: `m-${streams.length}`, role: 'ROLE_USER', parts: [{ text: 'mode:quiet' }] } });
  const headers = { 'a2a-version': '1.0', 'content-type': 'application/json', ...forwardedFor(client) };
  return openLiveStream(`${gateway.url}/message:stream`, { method: 'POST', headers, body });
}

beforeAll(async () => {
  agent = await startFaultyAgent();
  gateway = await startTestGateway({ 'trust-proxy': true, server: { 'max-connections-per-client': CAP }, upstream: { url: agent.url } });
  for (let i = 0; i < CAP; i++) streams.push(await holdStream(CAPPED));
  for (const stream of streams) expect(stream.response.status).toBe(200);
});
afterAll(async () => {
  for (const stream of streams) stream.abort();
  await gateway?.close();
  await agent?.close();
});

describe(`a client with ${CAP} requests in flight`, () => {
  it('a 1.0 caller is refused in its binding: a JSON-RPC error, an HTTP+JSON 429 RESOURCE_EXHAUSTED, each with the reason', async () => {
    // The card is read through another address: the proxy's own fetch, not the capped client's.
    const jsonRpc = await connect(gateway.url, 'JSONRPC', { headers: forwardedFor('198.51.100.9') });
    const rest = await connect(gateway.url, 'HTTP+JSON', { headers: forwardedFor('198.51.100.9') });
    const asCapped = { serviceParameters: { 'x-forwarded-for': `10.9.9.9, ${CAPPED}` } };
    const viaJsonRpc = await rejectionOf(jsonRpc.client.sendMessage(sendRequest('one too many'), asCapped));
    expect(viaJsonRpc).toMatchObject({ code: GatewayErrorCode.TooManyTurnsInFlight });
    expect(viaJsonRpc.message).toContain(REFUSAL);
    const viaRest = await rejectionOf(rest.client.sendMessage(sendRequest('one too many'), asCapped));
    expect(viaRest).toMatchObject({ code: 429 });
    expect(viaRest.message).toContain(REFUSAL);

    const raw = await fetch(`${gateway.url}/message:send`, {
      method: 'POST',
      headers: { 'a2a-version': '1.0', 'content-type': 'application/json', ...forwardedFor(CAPPED) },
      body: JSON.stringify({ message: { messageId: 'raw', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toBe('5');
    expect(await raw.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: REFUSAL } });
  });

  it('a 0.2.5 caller is refused in 0.2.5: an error on message/send (HTTP 200), one error frame on message/stream', async () => {
    const sent = await rpc(gateway.url, 'message/send', sdkParams('one too many'), { id: 'send-1', headers: forwardedFor(CAPPED) });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ jsonrpc: '2.0', id: 'send-1', error: { code: GatewayErrorCode.TooManyTurnsInFlight, message: REFUSAL } });
    const streamed = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('one too many'), {
      id: 'stream-1',
      headers: forwardedFor(CAPPED),
    });
    expect(streamed.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamed.response.headers.get('retry-after')).toBe('5');
    expect((await streamed.rest()).map((frame) => frame.json)).toEqual([
      { jsonrpc: '2.0', id: 'stream-1', error: { code: GatewayErrorCode.TooManyTurnsInFlight, message: REFUSAL } },
    ]);
  });

  it('the official 0.2.5 client shows the refusal on message/send and message/stream', async () => {
    const realFetch = globalThis.fetch;
    const client = new A2AClient(gateway.url);
    await client.getAgentCard();
    // The a2a-js 0.2.5 client has no header option: its posts go through the proxy as the capped client.
    globalThis.fetch = (input, init) =>
      realFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...forwardedFor(CAPPED) } });
    try {
      const answer: any = await client.sendMessage(sdkParams('one too many'));
      expect(answer.error).toEqual({ code: GatewayErrorCode.TooManyTurnsInFlight, message: REFUSAL });
      const stream = client.sendMessageStream(sdkParams('one too many, streamed'));
      await expect(stream.next()).rejects.toThrow(REFUSAL);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it('other clients are unaffected, and a closed stream frees its place', async () => {
    const other = await holdStream('198.51.100.1');
    streams.push(other);
    expect(other.response.status).toBe(200);
    streams[0]!.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await holdStream(CAPPED);
    streams.push(again);
    expect(again.response.status).toBe(200);
  });
});
