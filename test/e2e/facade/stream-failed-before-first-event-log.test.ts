/**
 * A facade `message/stream` that fails before its first event is answered as one SSE frame holding the 0.2.5 error
 * (what the a2a-js 0.2.5 client and Bailian read a stream's failure from). Its `stream ended` line says it ended so,
 * as its request line does: `ended: error` with the error's code, and for a failure not the caller's the cause, at
 * warn; not `completed`, which reads as a turn that ran to its end.
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED_PORT } from '../../support/free-port.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { rpc, userMessage } from '../../support/facade.js';
import { waitUntil } from '../../support/wait-until.js';

const INFO = 30;
const WARN = 40;

let unreachable: TestGateway;
let demo: TestGateway;
beforeAll(async () => {
  unreachable = await startTestGateway({ upstream: { url: `http://127.0.0.1:${CLOSED_PORT}` } });
  demo = await startTestGateway();
});
afterAll(async () => {
  await unreachable?.close();
  await demo?.close();
});

let sequence = 0;

async function lineOf(gateway: TestGateway, msg: string, reqId: string): Promise<Record<string, unknown>> {
  await waitUntil(async () => gateway.log().some((line) => line.msg === msg && line.reqId === reqId), 5_000);
  const lines = gateway.log().filter((line) => line.msg === msg && line.reqId === reqId);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

/** message/stream of `message` at the facade's `/stream`, with a request id of its own; its one frame's error. */
async function failedStream(gateway: TestGateway, message: Record<string, unknown>): Promise<{ reqId: string; error: unknown }> {
  const reqId = `facade-failed-stream-${++sequence}`;
  const answer = await rpc(`${gateway.url}/stream`, 'message/stream', { message }, { headers: { 'x-request-id': reqId } });
  expect(answer.contentType).toMatch(/^text\/event-stream/);
  return { reqId, error: answer.body.error };
}

describe('a facade message/stream that failed before its first event, in the stream ended line', () => {
  it('its agent out of reach: ended error at warn, with the code and the cause its request line has', async () => {
    const { reqId, error } = await failedStream(unreachable, userMessage({ text: '你好，帮我创建一个VPC' }));
    expect(error).toStrictEqual({ code: -32603, message: '暂时无法连接上游智能体' });
    const request = await lineOf(unreachable, 'request', reqId);
    expect(request).toMatchObject({ errorCode: -32603, causeCode: 'ECONNREFUSED' });
    expect(await lineOf(unreachable, 'stream ended', reqId)).toMatchObject({
      level: WARN,
      ended: 'error',
      events: 1,
      errorCode: -32603,
      cause: request.cause,
      causeCode: 'ECONNREFUSED',
    });
  });

  it("the caller's own bad request: ended error at info, with its code and no cause", async () => {
    const { reqId, error } = await failedStream(demo, userMessage({ text: 'hello', parts: [] }));
    expect(error).toMatchObject({ code: -32602 });
    const ended = await lineOf(demo, 'stream ended', reqId);
    expect(ended).toMatchObject({ level: INFO, ended: 'error', events: 1, errorCode: -32602 });
    expect(ended).not.toHaveProperty('cause');
  });

  it('the a2a-js 0.2.5 client still reads the failure in the words of its one frame', async () => {
    const client = new A2AClient(demo.url);
    const stream = client.sendMessageStream({ message: userMessage({ text: 'hello', parts: [] }) as any });
    await expect(stream.next()).rejects.toThrow(/^SSE event contained an error: Invalid params: .+ \(Code: -32602\)/);
  });
});
