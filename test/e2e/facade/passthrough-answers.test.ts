/**
 * In front of a 0.2.5 agent the facade relays, and what the agent's side answers is not always 0.2.5: a
 * proxy's HTML 502, an empty 500, a text/plain 404, JSON that is not JSON-RPC, a JSON body where a
 * stream was asked for. The caller gets the facade's own -32006 in the method's shape instead (one SSE
 * frame for a streaming method, JSON with HTTP 200 otherwise), with its own id, saying what happened and
 * nothing of the agent's body. A JSON-RPC answer to a streaming method is one frame holding it, so the
 * official client receives the agent's Message. What is already 0.2.5 goes through as it came: a
 * message/send result byte for byte (also over 64 KiB), an SSE stream event by event.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { collect, openStream, rpc, sdkParams, startRelayingFacadeGateway } from '../../support/facade.js';
import type { FakeV025 } from '../../support/fake-v025.js';
import {
  answeredHttp,
  BIG_MESSAGE,
  bigBytes,
  escapedKey,
  expectClean,
  MESSAGE,
  NOT_JSON_RPC,
  oddBytes,
  releaseFlow,
  startRelayScenarioAgent,
  streamError,
  TOO_LARGE,
} from '../../support/relay-scenarios.js';

let agent: FakeV025;
/** Anonymous callers: nothing recorded, no cap. */
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  agent = await startRelayScenarioAgent();
  gateway = await startRelayingFacadeGateway({ upstream: { url: agent.url } });
  client = new A2AClient(gateway.url);
});
afterAll(async () => {
  releaseFlow();
  await gateway?.close();
  await agent?.close();
});

describe('an answer in no protocol shape becomes the facade’s -32006, in the method’s shape', () => {
  it.each([
    ['an HTML 502', 'html-502', answeredHttp(502)],
    ['an empty 500', 'empty-500', answeredHttp(500)],
    ['JSON that is not JSON-RPC, HTTP 200', 'not-json-rpc', NOT_JSON_RPC],
    ['JSON that is not JSON-RPC, HTTP 500', 'not-json-rpc-500', answeredHttp(500)],
  ])('message/send answered with %s: a JSON error envelope, HTTP 200, the caller’s id', async (_what, scenario, error) => {
    const answer = await rpc(gateway.url, 'message/send', sdkParams(scenario), { id: `send-${scenario}` });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toStrictEqual({ jsonrpc: '2.0', id: `send-${scenario}`, error });
    expectClean(answer.text);

    const sent: any = await client.sendMessage(sdkParams(scenario));
    expect(sent.error).toStrictEqual(error);
    expect(sent.result).toBeUndefined();
  });

  it.each([
    ['an HTML 502', 'html-502', answeredHttp(502)],
    ['an empty 500', 'empty-500', answeredHttp(500)],
    ['JSON that is not JSON-RPC, HTTP 200', 'not-json-rpc', NOT_JSON_RPC],
    ['a JSON answer over 64 KiB', 'big', TOO_LARGE],
  ])('message/stream answered with %s: one SSE frame holding the error, HTTP 200, the caller’s id', async (_what, scenario, error) => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams(scenario), { id: `stream-${scenario}` });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await stream.rest();
    expect(frames.map((one) => one.json)).toStrictEqual([{ jsonrpc: '2.0', id: `stream-${scenario}`, error }]);
    expectClean(frames.map((one) => one.data).join('\n'));

    await expect(collect(client.sendMessageStream(sdkParams(scenario)))).rejects.toThrow(streamError(error));
  });

  it('message/stream answered with a stream under no Content-Type that does not end: the error comes at once', async () => {
    const reading = async () =>
      (await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('untyped-stream'), { id: 'stream-untyped' })).rest();
    const frames = await Promise.race([reading(), new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 2_000))]);
    expect(frames).not.toBe('waited');
    expect((frames as any[]).map((one) => one.json)).toStrictEqual([{ jsonrpc: '2.0', id: 'stream-untyped', error: NOT_JSON_RPC }]);
  });

  it('message/send answered with a stream under no Content-Type that does not end: the error comes at once', async () => {
    const sending = rpc(gateway.url, 'message/send', sdkParams('untyped-stream'), { id: 'send-untyped' });
    const answer = await Promise.race([sending, new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 2_000))]);
    if (answer === 'waited') throw new Error('the facade waited for the end of a body that cannot be JSON-RPC');
    expect(answer.body).toStrictEqual({ jsonrpc: '2.0', id: 'send-untyped', error: NOT_JSON_RPC });
  });

  it('tasks/get answered with a text/plain 404: the JSON error names the status', async () => {
    const answer = await rpc(gateway.url, 'tasks/get', { id: 'plain-404' }, { id: 7 });
    expect(answer.status).toBe(200);
    expect(answer.body).toStrictEqual({ jsonrpc: '2.0', id: 7, error: answeredHttp(404) });
    expectClean(answer.text);
    const got: any = await client.getTask({ id: 'plain-404' });
    expect(got.error).toStrictEqual(answeredHttp(404));
  });

  it('tasks/resubscribe answered with an HTML 503: one frame', async () => {
    const stream = await openStream(gateway.url, 'tasks/resubscribe', { id: 'html-503' }, { id: 'resub-1' });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = await stream.rest();
    expect(frames.map((one) => one.json)).toStrictEqual([{ jsonrpc: '2.0', id: 'resub-1', error: answeredHttp(503) }]);
    expectClean(frames.map((one) => one.data).join('\n'));
  });
});

describe('a JSON-RPC answer goes on as the agent wrote it', () => {
  it('message/stream answered with a JSON result: one SSE frame holding it; the official client yields the agent’s Message', async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('result'), { id: 'stream-result' });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect((await stream.rest()).map((one) => one.json)).toStrictEqual([{ jsonrpc: '2.0', id: 'stream-result', result: MESSAGE }]);

    expect(await collect(client.sendMessageStream(sdkParams('result')))).toStrictEqual([MESSAGE]);
  });

  it("message/stream refused with HTTP 429 and Retry-After: one frame holding the agent's envelope, its Retry-After and extensions kept", async () => {
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('busy-429'), { id: 'stream-busy' });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('retry-after')).toBe('7');
    expect(stream.response.headers.get('x-a2a-extensions')).toBe('https://example.com/ext/quota/v1');
    expect((await stream.rest()).map((one) => one.json)).toStrictEqual([
      { jsonrpc: '2.0', id: 'stream-busy', error: { code: -32000, message: 'Too many turns; try again in 7 s' } },
    ]);
    await expect(collect(client.sendMessageStream(sdkParams('busy-429')))).rejects.toThrow('Too many turns; try again in 7 s (Code: -32000)');
  });

  it.each([
    ['in its own layout', 'odd-bytes', oddBytes],
    ['with an escaped jsonrpc key', 'escaped-key', escapedKey],
    ['over 64 KiB', 'big', bigBytes],
  ])('message/send answered %s: the same bytes, HTTP 200', async (_what, scenario, bytes) => {
    const answer = await rpc(gateway.url, 'message/send', sdkParams(scenario), { id: `send-${scenario}` });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(bytes(`send-${scenario}`));
    const sent: any = await client.sendMessage(sdkParams(scenario));
    expect(sent.result).toStrictEqual(scenario === 'big' ? BIG_MESSAGE : MESSAGE);
  });

  it("message/send answered with an error envelope and HTTP 500: the same bytes with HTTP 200; the official client reports the agent's words", async () => {
    const answer = await rpc(gateway.url, 'message/send', sdkParams('envelope-500'), { id: 'send-500' });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(JSON.stringify({ jsonrpc: '2.0', id: 'send-500', error: { code: -32603, message: 'General processing error.' } }));
    const sent: any = await client.sendMessage(sdkParams('envelope-500'));
    expect(sent.error).toEqual({ code: -32603, message: 'General processing error.' });
  });

  it('an SSE answer flows event by event: the first event arrives while the agent still holds the second', async () => {
    const opening = async () => {
      const stream = await openStream(`${gateway.url}/stream`, 'message/stream', sdkParams('flow'), { id: 'stream-flow' });
      return { stream, first: await stream.next() };
    };
    const opened = await Promise.race([opening(), new Promise<'held back'>((resolve) => setTimeout(() => resolve('held back'), 2_000))]);
    if (opened === 'held back') throw new Error('the first event did not come before the agent ended its stream');
    const { stream, first } = opened;
    expect(first?.json.result).toMatchObject({ kind: 'task', id: 'relayed-stream-flow' });
    releaseFlow();
    expect((await stream.rest()).map((one) => one.json.result.kind)).toStrictEqual(['status-update']);
  });
});
