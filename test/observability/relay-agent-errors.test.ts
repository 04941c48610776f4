/**
 * What an operator reads of the facade's relay (`bailian.profile: a2a-0.2.5`) when the agent itself fails a call:
 * - the agent's JSON-RPC error, which the relay hands on as it came under HTTP 200, is on the request line
 *   (`errorCode`; for a failure not the caller's, at warn with the agent's words, scrubbed, as `cause`) and counted
 *   by its code, and the upstream call counts `outcome="error"`. Before, all three said the call went well.
 * - a relayed stream that breaks mid-way (the agent's connection reset) has its `stream ended` line at warn, as one
 *   the relay cuts for silence has. Before, nothing was logged.
 * The first case is a real a2a-js 0.2.5 agent; the failing agents are hand-written (fault injection).
 */
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkParams } from '../support/facade.js';
import { frame, rpcError, startFakeV025, type FakeV025 } from '../support/fake-v025.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { addedBy } from '../support/prometheus.js';
import { startSdkV025Agent, V025_THROWN, type RunningSdkV025Agent } from '../support/sdk-v025-agent.js';
import { waitUntil } from '../support/wait-until.js';

const RELAYED = { profile: 'a2a-0.2.5' };
const WARN = 40;
const INFO = 30;

/** The log lines of `msg` and `method` written after the first `skip`, once there is one. */
async function linesOf(gateway: TestGateway, msg: string, method: string, skip: number) {
  const of = () =>
    gateway
      .log()
      .slice(skip)
      .filter((line) => line.msg === msg && line.method === method);
  await waitUntil(async () => of().length > 0);
  return of();
}

/** What `calls` add to a2a_bridge_requests_total and a2a_bridge_upstream_requests_total. */
async function counted(gateway: TestGateway, calls: () => Promise<unknown>) {
  let upstream: (labels: Record<string, string>) => number = () => 0;
  const requests = await addedBy(gateway.url, 'a2a_bridge_requests_total', async () => {
    upstream = await addedBy(gateway.url, 'a2a_bridge_upstream_requests_total', calls);
  });
  return { requests, upstream };
}

describe('a real 0.2.5 agent answering a JSON-RPC error', () => {
  let agent: RunningSdkV025Agent;
  let gateway: TestGateway;
  beforeAll(async () => {
    agent = await startSdkV025Agent();
    gateway = await startTestGateway({ bailian: RELAYED, upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it("tasks/get of an unknown task: the caller reads the agent's -32001; the line and the counters say -32001", async () => {
    const skip = gateway.log().length;
    let answer: unknown;
    const { requests, upstream } = await counted(gateway, async () => {
      answer = await new A2AClient(gateway.url).getTask({ id: 'no-such-task' });
    });
    expect(answer).toMatchObject({ error: { code: -32001 } });
    const [line] = await linesOf(gateway, 'request', 'tasks/get', skip);
    // The caller's mistake: its code, at info.
    expect(line).toMatchObject({ level: INFO, status: 200, errorCode: -32001 });
    expect(line).not.toHaveProperty('cause');
    expect(requests({ surface: 'v025', method: 'tasks/get', outcome: 'error', error_code: '-32001' })).toBe(1);
    expect(requests({ surface: 'v025', method: 'tasks/get', outcome: 'ok' })).toBe(0);
    expect(upstream({ method: 'tasks/get', outcome: 'error' })).toBe(1);
    expect(upstream({ method: 'tasks/get', outcome: 'ok' })).toBe(0);
  });

  it('a result is still ok everywhere', async () => {
    const skip = gateway.log().length;
    const { requests, upstream } = await counted(gateway, () => new A2AClient(gateway.url).sendMessage(sdkParams('hello')));
    const [line] = await linesOf(gateway, 'request', 'message/send', skip);
    expect(line).not.toHaveProperty('errorCode');
    expect(requests({ surface: 'v025', method: 'message/send', outcome: 'ok' })).toBe(1);
    expect(upstream({ method: 'message/send', outcome: 'ok' })).toBe(1);
  });
});

describe('a failing 0.2.5 agent', () => {
  let agent: FakeV025;
  let gateway: TestGateway;
  beforeAll(async () => {
    agent = await startFakeV025({
      rpc: {
        'message/send': (call, res) => rpcError(call, res, { code: -32603, message: V025_THROWN }),
        'message/stream': (call, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const task = { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'working' } };
          // Reset once the event is well on its way: a break mid-stream, not an answer cut before its headers.
          res.write(frame(call, task), () => setTimeout(() => res.socket?.destroy(), 100));
        },
      },
    });
    gateway = await startTestGateway({ bailian: RELAYED, 'keepalive-ms': 0, upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it("an internal error under HTTP 200: the request line at warn with the agent's words, scrubbed; counted -32603", async () => {
    const skip = gateway.log().length;
    let answer: unknown;
    const { requests, upstream } = await counted(gateway, async () => {
      answer = await new A2AClient(gateway.url).sendMessage(sdkParams('hello'));
    });
    expect(answer).toMatchObject({ error: { code: -32603 } });
    const [line] = await linesOf(gateway, 'request', 'message/send', skip);
    expect(line).toMatchObject({ level: WARN, status: 200, errorCode: -32603, cause: expect.stringContaining('-32603') });
    expect(JSON.stringify(line)).not.toMatch(/alice|sk-live/);
    expect(requests({ surface: 'v025', method: 'message/send', outcome: 'error', error_code: '-32603' })).toBe(1);
    expect(upstream({ method: 'message/send', outcome: 'error' })).toBe(1);
  });

  it("a stream whose connection the agent resets mid-way: ends with the relay's error frame; a `stream ended` line at warn", async () => {
    const skip = gateway.log().length;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 'cut', method: 'message/stream', params: sdkParams('hello') });
    const answer = await fetch(`${gateway.url}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    // Read whole: before, the body failed ("terminated"), the transport's words appended to it as text when they got out.
    const frames = (await answer.text()).split('\n\n').filter((text) => text.trim() !== '');
    expect(frames).toHaveLength(2);
    const last = JSON.parse(frames[1]!.replace(/^data: /, '')) as { id: string; error: { code: number; message: string } };
    expect(last).toMatchObject({ id: 'cut', error: { code: -32603, message: 'Upstream agent is unavailable' } });
    const ended = await linesOf(gateway, 'stream ended', 'message/stream', skip);
    expect(ended).toEqual([
      expect.objectContaining({
        level: WARN,
        surface: 'v025',
        ended: 'error',
        errorCode: -32603,
        cause: 'other side closed',
        causeCode: 'UND_ERR_SOCKET',
      }),
    ]);
  });
});
