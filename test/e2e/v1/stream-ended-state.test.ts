/**
 * The `stream ended` line of a 1.0 stream (JSON-RPC and HTTP+JSON SSE) says the task state the stream ended in,
 * the last one its caller was sent, as the facade's line does: the request line, written when the headers went
 * out, says only the first event's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLOW_PREFIX } from '../../../src/demo-agent/index.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { sendMessageParams } from '../../support/v1-message.js';
import { waitUntil } from '../../support/wait-until.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startDemoGateway();
});
afterAll(async () => {
  await gateway?.close();
});

let sequence = 0;

/** SendStreamingMessage of `text` on `binding`, with a request id of its own; the response as it opened. */
async function stream(binding: 'JSONRPC' | 'HTTP+JSON', text: string, signal?: AbortSignal): Promise<{ reqId: string; response: Response }> {
  const reqId = `v1-stream-ended-${++sequence}`;
  const headers = { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-request-id': reqId };
  const params = sendMessageParams(text);
  const response =
    binding === 'JSONRPC'
      ? await fetch(gateway.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params }),
          signal,
        })
      : await fetch(`${gateway.url}/message:stream`, { method: 'POST', headers, body: JSON.stringify(params), signal });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return { reqId, response };
}

async function lineOf(msg: string, reqId: string): Promise<Record<string, unknown>> {
  await waitUntil(async () => gateway.log().some((line) => line.msg === msg && line.reqId === reqId), 5_000);
  const lines = gateway.log().filter((line) => line.msg === msg && line.reqId === reqId);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

/** The task state of the last event of an SSE body that carries one (a JSON-RPC frame's `result`, or the bare event). */
function lastStateOf(body: string): string | undefined {
  const events = body
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice('data:'.length)) as Record<string, any>)
    .map((frame) => frame.result ?? frame);
  const states = events.map((event) => event.task?.status?.state ?? event.statusUpdate?.status?.state).filter((state) => state !== undefined);
  return states.at(-1);
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('the stream ended line of a 1.0 stream (%s)', (binding) => {
  it('a turn streamed to its end: completed, in the state it ended in', async () => {
    const { reqId, response } = await stream(binding, 'hello');
    const last = lastStateOf(await response.text());
    // The demo agent ends its turns as iac-code does, waiting for the next message.
    expect(last).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await lineOf('request', reqId)).state).not.toBe(last);
    expect(await lineOf('stream ended', reqId)).toMatchObject({ ended: 'completed', state: last });
  });

  it('a caller that hangs up mid-turn: caller_left, in the state it was last sent', async () => {
    const leave = new AbortController();
    const { reqId, response } = await stream(binding, `${SLOW_PREFIX} count`, leave.signal);
    const reader = response.body!.getReader();
    await reader.read();
    leave.abort();
    expect(await lineOf('stream ended', reqId)).toMatchObject({ ended: 'caller_left', state: 'TASK_STATE_WORKING' });
  });
});
