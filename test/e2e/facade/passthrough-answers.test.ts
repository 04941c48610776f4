/**
 * In front of a 0.2.5 agent the facade relays, and what the agent's side answers is not always 0.2.5: a
 * proxy's HTML 502, an empty 500, a text/plain 404, JSON that is not JSON-RPC, a JSON body where a
 * stream was asked for. The caller gets the facade's own -32006 in the method's shape instead (one SSE
 * frame for a streaming method, JSON with HTTP 200 otherwise), with its own id, saying what happened and
 * nothing of the agent's body. A JSON-RPC answer to a streaming method is one frame holding it, so the
 * official client receives the agent's Message. What is already 0.2.5 goes through as it came: a
 * message/send result byte for byte (also over 64 KiB), an SSE stream event by event.
 */
import type { ServerResponse } from 'node:http';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GatewayErrorCode } from '../../../src/model/index.js';
import { collect, expectNoLeak, openStream, rpc, sdkParams, startFacadeGateway } from '../../support/facade.js';
import { frame, json, raw, rpcResult, sse, startFakeV025, type FakeCall, type FakeV025 } from '../../support/fake-v025.js';
import { admittedWithin } from '../../support/turn-limits.js';

/** A name only the agent's side knows: it must never reach the caller. */
const MARKER = 'internal-host-7';
const HTML_502 =
  '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>' +
  `<p>nginx: upstream ${MARKER}:8080 refused the connection</p></body></html>`;
const HTML_503 = `<html><body>503 Service Unavailable (${MARKER})</body></html>`;

const MESSAGE = { kind: 'message', role: 'agent', messageId: 'agent-msg-1', parts: [{ kind: 'text', text: 'hello from the agent' }] };
const BIG_MESSAGE = { kind: 'message', role: 'agent', messageId: 'agent-msg-big', parts: [{ kind: 'text', text: 'x'.repeat(150 * 1024) }] };
/** A well-formed envelope in the agent's own layout: keys in another order, spaces, a final newline. */
const oddBytes = (id: unknown): string => `{ "id": ${JSON.stringify(id)},\n  "jsonrpc": "2.0",\n  "result": ${JSON.stringify(MESSAGE)} }\n`;
/** An envelope whose `jsonrpc` key is written with an escape: valid JSON-RPC, no literal `"jsonrpc"` in its bytes. */
const escapedKey = (id: unknown): string => `{"\\u006asonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(MESSAGE)}}`;
const bigBytes = (id: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, result: BIG_MESSAGE });
const relayedTask = (call: FakeCall) => ({
  kind: 'task',
  id: `relayed-${String(call.id)}`,
  contextId: 'ctx-relayed',
  status: { state: 'completed' },
});

const AGENT_FAILED = -32006;
const answeredHttp = (status: number) => ({ code: AGENT_FAILED, message: `The upstream agent answered HTTP ${status}` });
const NOT_JSON_RPC = { code: AGENT_FAILED, message: 'The upstream agent returned a response that is not JSON-RPC' };
const TOO_LARGE = { code: AGENT_FAILED, message: 'The upstream agent returned a response that is not a stream and too large to relay as one event' };

/** How the official client reports an error frame. */
const streamError = (error: { code: number; message: string }): string => `SSE event contained an error: ${error.message} (Code: ${error.code})`;

let releaseFlow: () => void = () => undefined;

/** A 2xx JSON body written 40 KiB at a time, so that the gateway has read past 64 KiB before the rest arrives. */
async function inParts(res: ServerResponse, text: string): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  for (let at = 0; at < text.length; at += 40 * 1024) {
    res.write(text.slice(at, at + 40 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  res.end();
}

/** The agent's answer, chosen by the message's text (message methods) or the task id (task methods). */
function answer(scenario: string, call: FakeCall, res: ServerResponse, streamed: boolean): void | Promise<void> {
  switch (scenario) {
    case 'html-502':
      return raw(res, 502, 'text/html; charset=utf-8', HTML_502);
    case 'html-503':
      return raw(res, 503, 'text/html', HTML_503);
    case 'empty-500':
      return raw(res, 500, undefined, '');
    case 'plain-404':
      return raw(res, 404, 'text/plain', `Not Found: /rpc on ${MARKER}`);
    case 'not-json-rpc':
      return json(res, 200, { detail: `no route on ${MARKER}` });
    case 'not-json-rpc-500':
      return json(res, 500, { timestamp: '2026-12-03T14:00:00Z', status: 500, error: 'Internal Server Error', path: '/rpc', host: MARKER });
    case 'busy-429':
      // A refusal for now, as a rate-limited agent gives it: its Retry-After and extensions must reach the caller.
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7', 'x-a2a-extensions': 'https://example.com/ext/quota/v1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'Too many turns; try again in 7 s' } }));
      return;
    case 'envelope-500':
      return json(res, 500, { jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'General processing error.' } });
    case 'big':
      return inParts(res, bigBytes(call.id));
    case 'odd-bytes':
      return raw(res, 200, 'application/json', oddBytes(call.id));
    case 'escaped-key':
      return raw(res, 200, 'application/json', escapedKey(call.id));
    case 'untyped-stream':
      // A stream under no Content-Type, held open: never read to its end.
      res.writeHead(200);
      res.write(frame(call, relayedTask(call)));
      return;
    case 'result':
      return rpcResult(call, res, MESSAGE);
    case 'task-result':
      return rpcResult(call, res, relayedTask(call));
    case 'flow':
      sse(res, [frame(call, relayedTask(call))], { keepOpen: true });
      return new Promise<void>((resolve) => {
        releaseFlow = () => {
          res.end(
            frame(call, {
              kind: 'status-update',
              taskId: relayedTask(call).id,
              contextId: 'ctx-relayed',
              status: { state: 'completed' },
              final: true,
            }),
          );
          resolve();
        };
      });
    default:
      return streamed ? sse(res, [frame(call, relayedTask(call))]) : rpcResult(call, res, MESSAGE);
  }
}

const textOf = (call: FakeCall): string => (call.params as any)?.message?.parts?.[0]?.text ?? '';
const taskIdOf = (call: FakeCall): string => (call.params as any)?.id ?? '';

let agent: FakeV025;
/** Anonymous callers: nothing recorded, no cap. */
let gateway: RunningGateway;
let client: A2AClient;

beforeAll(async () => {
  agent = await startFakeV025({
    rpc: {
      'message/send': (call, res) => answer(textOf(call), call, res, false),
      'message/stream': (call, res) => answer(textOf(call), call, res, true),
      'tasks/get': (call, res) =>
        taskIdOf(call).startsWith('relayed-')
          ? rpcResult(call, res, relayedTask({ ...call, id: taskIdOf(call).slice(8) }))
          : answer(taskIdOf(call), call, res, false),
      'tasks/resubscribe': (call, res) => answer(taskIdOf(call), call, res, true),
    },
  });
  gateway = await startFacadeGateway({ upstream: { url: agent.url } });
  client = new A2AClient(gateway.url);
});
afterAll(async () => {
  releaseFlow();
  await gateway?.close();
  await agent?.close();
});

/** Nothing of the agent's body, no stack, path or secret in what the caller got. */
function expectClean(text: string): void {
  expect(text).not.toContain(MARKER);
  expect(text).not.toContain('<html');
  expectNoLeak(text);
}

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

describe('with credentials set and one turn per client', () => {
  let capped: RunningGateway;
  let cappedClient: A2AClient;
  beforeAll(async () => {
    capped = await startFacadeGateway({
      upstream: { url: agent.url },
      auth: { token: 'one-point-oh-token' },
      limits: { 'turns-in-flight-per-client': 1 },
    });
    cappedClient = new A2AClient(capped.url);
  });
  afterAll(async () => {
    await capped?.close();
  });

  it('the task of a JSON result relayed as one frame is recorded: the caller can get it, a task never relayed is not found', async () => {
    const events = await collect(cappedClient.sendMessageStream(sdkParams('task-result')));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    const got: any = await cappedClient.getTask({ id: events[0].id });
    expect(got.result).toMatchObject({ kind: 'task', id: events[0].id });
    expect(((await cappedClient.getTask({ id: 'relayed-never-sent' })) as any).error?.code).toBe(-32001);
  });

  const sendPasses = async (): Promise<any> => {
    const answer = await rpc(capped.url, 'message/send', sdkParams('normal'));
    if (answer.body?.error?.code === GatewayErrorCode.TooManyTurnsInFlight) throw new Error('refused: a slot is still held');
    return answer.body;
  };

  it.each([
    ['message/send', 'html-502', answeredHttp(502)],
    ['message/send', 'not-json-rpc', NOT_JSON_RPC],
    ['message/stream', 'empty-500', answeredHttp(500)],
    ['message/stream', 'big', TOO_LARGE],
    ['message/stream', 'result', undefined],
  ])('%s answered with %s: the rewritten answer, then the slot is free again', async (method, scenario, error) => {
    const answer = await rpc(method === 'message/send' ? capped.url : `${capped.url}/stream`, method, sdkParams(scenario), { id: 'capped-1' });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(method === 'message/send' ? /^application\/json/ : /^text\/event-stream/);
    expect(answer.body).toStrictEqual(error ? { jsonrpc: '2.0', id: 'capped-1', error } : { jsonrpc: '2.0', id: 'capped-1', result: MESSAGE });
    expectClean(answer.text);
    expect(await admittedWithin(sendPasses, (refusal) => refusal instanceof Error && refusal.message.startsWith('refused'))).toMatchObject({
      result: MESSAGE,
    });
  });
});
