/**
 * JSON nested too deep is refused by the endpoint once the envelope (id, method) is read, so the refusal
 * takes the form the method answers its errors in (docs/conformance.md): a 0.2.5 streaming method
 * (message/stream, tasks/resubscribe) one SSE frame with the 0.2.5 envelope, which the official 0.2.5
 * client reports in the error's own words (as plain JSON it said only "Invalid response Content-Type");
 * a 0.2.5 unary method and every 1.0 method (streaming ones too: a 1.0 error before a stream's first
 * event is a plain error) plain JSON. On the facade's own endpoint (a base path) and on the `POST /` it
 * shares with the 1.0 surface.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import type { MessageSendParams } from 'a2a-sdk-025';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { exchange, parseSse } from './support.js';

const TOKEN = 'deep-stream-refusals-token-0123456789';
const DEPTH_WORDS = /nested deeper than 100 levels/;

let nested: unknown = 'x';
for (let level = 0; level < 120; level++) nested = { a: nested };

const message = (): MessageSendParams => ({
  message: { kind: 'message', role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'text', text: 'hi' }], metadata: { deep: nested } },
});

async function streamFailure(events: AsyncIterable<unknown>): Promise<string> {
  try {
    for await (const event of events) return `an event instead of a failure: ${JSON.stringify(event).slice(0, 200)}`;
    return 'the stream ended without a failure';
  } catch (error) {
    return (error as Error).message;
  }
}

describe.each([
  { where: 'the shared POST /', bailian: {} },
  { where: 'the facade under a base path', bailian: { 'base-path': '/bailian' } },
])('the official 0.2.5 client, on $where', ({ bailian }) => {
  let gateway: TestGateway;
  let client: A2AClient;
  beforeAll(async () => {
    gateway = await startDemoGateway({ auth: { token: TOKEN }, bailian });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('message/stream refused for depth reports the refusal in its words', async () => {
    const failure = await streamFailure(client.sendMessageStream(message()));
    expect(failure).toMatch(DEPTH_WORDS);
    expect(failure).toMatch(/-32600/);
  });

  it('tasks/resubscribe refused for depth reports the refusal in its words', async () => {
    const failure = await streamFailure(client.resubscribeTask({ id: 'some-task', metadata: { deep: nested } }));
    expect(failure).toMatch(DEPTH_WORDS);
  });

  it('message/send refused for depth is the 0.2.5 error the client returns', async () => {
    const answer = (await client.sendMessage(message())) as { error?: { code: number; message: string; data?: unknown } };
    expect(answer.error?.code).toBe(-32600);
    expect(answer.error?.message).toMatch(DEPTH_WORDS);
  });
});

describe('1.0 streaming methods refused for depth on JSON-RPC', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startDemoGateway({ auth: { token: TOKEN } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it.each([
    ['SendStreamingMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { deep: nested } } }],
    ['SubscribeToTask', { id: 'some-task', metadata: { deep: nested } }],
  ])('%s is a plain JSON-RPC error with its id, as a 1.0 error before the first event is', async (method, params) => {
    const answer = await exchange(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'deep-1', method, params }),
    });
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.json).toMatchObject({ jsonrpc: '2.0', id: 'deep-1', error: { code: -32600, message: expect.stringMatching(DEPTH_WORDS) } });
  });

  it('a facade streaming method refused for depth is one frame, then the end', async () => {
    const answer = await exchange(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'message/stream', params: message() }),
    });
    expect(answer.contentType).toMatch(/^text\/event-stream/);
    const frames = parseSse(answer.text);
    expect(frames).toHaveLength(1);
    expect(JSON.parse(frames[0]!.data)).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32600, message: expect.stringMatching(DEPTH_WORDS) } });
  });
});
