/**
 * A caller that hangs up before its answer is no failure of the gateway's, as an operator reads it: its log line
 * says `ended: caller_left` and carries no error code, and a2a_bridge_requests_total counts it
 * `outcome="caller_left"`, not among the errors the error-ratio alert pages on (-32603, INTERNAL). Before, a gRPC
 * stream its client cancelled and a read its caller gave up on were `-32603` (INTERNAL on gRPC), as if the gateway
 * had broken. A call whose caller hangs up mid-stream on the HTTP bindings has its `stream ended` line
 * (stream-end-log.test.ts); the gRPC call line is the only line of a gRPC call.
 */
import { status } from '@grpc/grpc-js';
import type { Transport } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcTransport, wire } from '../e2e/grpc/grpc-client.js';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type GrpcLogLine, type TestGateway } from '../support/gateway.js';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../support/held-turns-agent.js';
import { addedBy } from '../support/prometheus.js';
import { connect, sendRequest, TRANSPORTS } from '../support/sdk-v1-client.js';
import { waitUntil } from '../support/wait-until.js';

const REQUESTS = 'a2a_bridge_requests_total';

/** What `calls` add to `gateway`'s a2a_bridge_requests_total, by labels. */
const counted = (gateway: TestGateway, calls: () => Promise<unknown>) => addedBy(gateway.url, REQUESTS, calls);

/** The lines of `method` among `lines` past the first `skip`, once there is one. */
async function linesOf<L extends { method?: string }>(lines: () => L[], method: string, skip: number): Promise<L[]> {
  const of = () =>
    lines()
      .slice(skip)
      .filter((line) => line.method === method);
  await waitUntil(async () => of().length > 0);
  return of();
}

describe('gRPC: a stream whose client cancels it after its first event', () => {
  let agent: HeldTurnsAgent;
  let gateway: TestGateway;
  let grpc: Transport;
  beforeAll(async () => {
    // Its turns last until the test ends them: only the caller ends these streams.
    agent = await startHeldTurnsAgent();
    gateway = await startTestGateway({ grpc: { port: 0 }, upstream: { url: agent.url } });
    grpc = await grpcTransport(gateway);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  /** The stream's first event's task id; then the call is cancelled, as `break` out of the SDK's iterator does. */
  async function firstEventThenCancel(stream: AsyncIterable<{ payload?: { value: unknown } }>): Promise<string> {
    for await (const event of stream) return (event.payload?.value as { id: string }).id;
    throw new Error('the stream ended without an event');
  }

  it.each(['SendStreamingMessage', 'SubscribeToTask'])('%s: CANCELLED and ended caller_left, counted caller_left', async (method) => {
    const logged = gateway.grpcLog().length;
    let lines: GrpcLogLine[] = [];
    const added = await counted(gateway, async () => {
      const taskId = await firstEventThenCancel(grpc.sendMessageStream(sendRequest('hold on'), wire()));
      if (method === 'SubscribeToTask') await firstEventThenCancel(grpc.resubscribeTask({ tenant: '', id: taskId }, wire()));
      lines = await linesOf(() => gateway.grpcLog(), method, logged);
    });
    expect(lines).toEqual([expect.objectContaining({ grpcStatus: status.CANCELLED, ended: 'caller_left' })]);
    expect(lines[0]).not.toHaveProperty('errorCode');
    expect(added({ surface: 'grpc', method, outcome: 'caller_left', error_code: '' })).toBe(1);
    expect(added({ surface: 'grpc', method, outcome: 'error' })).toBe(0);
  });
});

describe('a GetTask whose caller stops waiting while the agent does not answer', () => {
  let fake: FakeIacCode;
  let gateway: TestGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode();
    // The agent's bounds far away: only the caller ends these calls.
    gateway = await startTestGateway({
      grpc: { port: 0 },
      upstream: { url: fake.url, 'request-timeout-ms': 60_000, 'headers-timeout-ms': 60_000 },
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  const GET_TASK = { tenant: '', id: 'task-1', historyLength: undefined };

  /**
   * A GetTask the agent never answers, which `read` gives up once the agent has it: its log lines (of `log`) and
   * what it added to the metrics.
   */
  async function abandonedGetTask<L extends { method?: string }>(read: (signal: AbortSignal) => Promise<unknown>, log: () => L[]) {
    const logged = log().length;
    let lines: L[] = [];
    const added = await counted(gateway, async () => {
      fake.injectFault('hang-before-headers', { method: 'GetTask' });
      const before = fake.rpcRequests('GetTask').length;
      const caller = new AbortController();
      const reading = read(caller.signal).catch(() => undefined);
      await waitUntil(async () => fake.rpcRequests('GetTask').length > before);
      caller.abort();
      await reading;
      lines = await linesOf(log, 'GetTask', logged);
    });
    return { lines, added };
  }

  it('gRPC, cancelled: CANCELLED and ended caller_left, counted caller_left', async () => {
    const grpc = await grpcTransport(gateway);
    const { lines, added } = await abandonedGetTask(
      (signal) => grpc.getTask(GET_TASK, { ...wire(), signal }),
      () => gateway.grpcLog(),
    );
    expect(lines).toEqual([expect.objectContaining({ grpcStatus: status.CANCELLED, ended: 'caller_left' })]);
    expect(lines[0]).not.toHaveProperty('errorCode');
    expect(added({ surface: 'grpc', method: 'GetTask', outcome: 'caller_left', error_code: '' })).toBe(1);
    expect(added({ surface: 'grpc', method: 'GetTask', outcome: 'error' })).toBe(0);
  });

  it('gRPC, its deadline passed: ended caller_left, counted caller_left', async () => {
    const logged = gateway.grpcLog().length;
    let lines: GrpcLogLine[] = [];
    const added = await counted(gateway, async () => {
      fake.injectFault('hang-before-headers', { method: 'GetTask' });
      const shortDeadline = await grpcTransport(gateway, {}, { deadline: Date.now() + 500 });
      await shortDeadline.getTask(GET_TASK, wire()).catch(() => undefined);
      lines = await linesOf(() => gateway.grpcLog(), 'GetTask', logged);
    });
    // DEADLINE_EXCEEDED when the deadline ended it at the gateway (grpc-js's timer or the gateway's own, whichever ran
    // first: deadline-ending.test.ts), CANCELLED when the client's own timer cut the call first.
    expect(lines).toEqual([expect.objectContaining({ ended: 'caller_left' })]);
    expect([status.DEADLINE_EXCEEDED, status.CANCELLED]).toContain(lines[0]!.grpcStatus);
    expect(lines[0]).not.toHaveProperty('errorCode');
    expect(added({ surface: 'grpc', method: 'GetTask', outcome: 'caller_left', error_code: '' })).toBe(1);
  });

  it.each(TRANSPORTS)('%s: status 499 and ended caller_left, at info, counted caller_left', async (transport) => {
    const { client } = await connect(gateway.url, transport);
    const { lines, added } = await abandonedGetTask(
      (signal) => client.getTask(GET_TASK, { signal }),
      () => gateway.requestLog(),
    );
    // Nobody read an answer; JSON-RPC's HTTP 200 (HTTP+JSON's 500) would say one went out. 30: info.
    expect(lines).toEqual([expect.objectContaining({ status: 499, ended: 'caller_left', level: 30 })]);
    expect(lines[0]).not.toHaveProperty('errorCode');
    const surface = transport === 'JSONRPC' ? 'jsonrpc' : 'rest';
    expect(added({ surface, method: 'GetTask', outcome: 'caller_left', error_code: '' })).toBe(1);
    expect(added({ surface, method: 'GetTask', outcome: 'error' })).toBe(0);
  });
});
