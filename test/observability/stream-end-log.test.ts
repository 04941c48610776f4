/**
 * A stream's request line is written when its headers go out; one more line, `stream ended`, tells how it ended,
 * how long it lasted and how many events its caller got: completed, caller_left (hung up), error (the agent's
 * stream broke: with the cause, as a failed call's request line has it), timeout (the agent went quiet past
 * stream-idle-timeout-ms); at info, at warn when it ended for a cause not the caller's. On the 1.0 surface and on
 * the facade's message/stream alike; the facade renders a failure as events and ends its stream normally, so its
 * line reads what its caller was shown: the state, and for a failed turn error with the words its user read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v025Request } from '../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { waitUntil } from '../support/wait-until.js';

const INFO = 30;
const WARN = 40;

let fake: FakeIacCode;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startFakeIacCode();
  gateway = await startTestGateway({ upstream: { url: fake.url, 'stream-idle-timeout-ms': 400 } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

let sequence = 0;

/** A 1.0 SendStreamingMessage of `text`, its request id. */
function streamRequest(text: string): { reqId: string; init: RequestInit } {
  const reqId = `stream-end-${++sequence}`;
  const body = {
    jsonrpc: '2.0',
    id: sequence,
    method: 'SendStreamingMessage',
    params: { message: { messageId: `m-${reqId}`, role: 'ROLE_USER', parts: [{ text }] } },
  };
  return {
    reqId,
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': reqId },
      body: JSON.stringify(body),
    },
  };
}

/** The events (SSE `data:` frames) in a stream's text. */
const eventsIn = (text: string): number => text.split('\n').filter((line) => line.startsWith('data:')).length;

async function endLine(reqId: string): Promise<Record<string, unknown>> {
  await waitUntil(async () => gateway.log().some((line) => line.msg === 'stream ended' && line.reqId === reqId), 5_000);
  const lines = gateway.log().filter((line) => line.msg === 'stream ended' && line.reqId === reqId);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('the stream ended line', () => {
  it('a stream read to its end: completed, with the events its caller got and its whole duration', async () => {
    const { reqId, init } = streamRequest('hello');
    const text = await (await fetch(gateway.url, init)).text();
    const line = await endLine(reqId);
    const request = gateway.log().find((one) => one.msg === 'request' && one.reqId === reqId)!;
    expect(line).toMatchObject({ level: INFO, surface: 'jsonrpc', method: 'SendStreamingMessage', ended: 'completed', events: eventsIn(text) });
    expect(line.events).toBeGreaterThan(1);
    expect(line.taskId).toBe(request.taskId);
    expect(line.durationMs as number).toBeGreaterThanOrEqual(request.durationMs as number);
  });

  it('a caller that hangs up mid-stream: caller_left, with the events written until then', async () => {
    const { reqId, init } = streamRequest('[fault:hang-mid-stream after=2] hello');
    const controller = new AbortController();
    const response = await fetch(gateway.url, { ...init, signal: controller.signal });
    const reader = response.body!.getReader();
    let text = '';
    while (eventsIn(text) < 2) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const line = await endLine(reqId);
    expect(line).toMatchObject({ level: INFO, ended: 'caller_left', events: 2 });
  });

  it("an agent's stream that breaks: error, with the cause, at warn; one that goes quiet: timeout, at warn", async () => {
    const broken = streamRequest('[fault:kill-mid-stream after=2] hello');
    await (await fetch(gateway.url, broken.init)).text();
    expect(await endLine(broken.reqId)).toMatchObject({ level: WARN, ended: 'error', errorCode: -32603, causeCode: 'UND_ERR_SOCKET' });
    const quiet = streamRequest('[fault:hang-mid-stream after=2] hello');
    await (await fetch(gateway.url, quiet.init)).text();
    expect(await endLine(quiet.reqId)).toMatchObject({ level: WARN, ended: 'timeout' });
  });

  it("the facade's message/stream: the same line, its events the 0.2.5 events its caller got", async () => {
    const reqId = `stream-end-${++sequence}`;
    const init = v025Request('message/stream', 'hello');
    const text = await (
      await fetch(`${gateway.url}/stream`, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-request-id': reqId } })
    ).text();
    expect(await endLine(reqId)).toMatchObject({
      level: INFO,
      surface: 'v025',
      method: 'message/stream',
      ended: 'completed',
      state: 'completed',
      events: eventsIn(text),
    });
  });

  it("the facade's message/stream whose agent breaks and cannot be recovered: error at warn, with the state and the words its user read", async () => {
    // Last in the file: the failed recoveries take the fake's next answers.
    fake.injectFault({ name: 'kill-mid-stream', after: 2 }, { method: 'SendStreamingMessage' });
    fake.injectFault('http-500', { times: 20 });
    const reqId = `stream-end-${++sequence}`;
    const init = v025Request('message/stream', 'hello');
    const text = await (
      await fetch(`${gateway.url}/stream`, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-request-id': reqId } })
    ).text();
    expect(text).toContain('Upstream agent is unavailable');
    expect(text).toContain('"state":"failed"');
    expect(await endLine(reqId)).toMatchObject({
      level: WARN,
      surface: 'v025',
      method: 'message/stream',
      ended: 'error',
      state: 'failed',
      cause: 'Upstream agent is unavailable',
      events: eventsIn(text),
    });
  });
});
