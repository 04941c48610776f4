/**
 * In front of a 0.2.5 agent the facade relays the agent's stream byte for byte; an agent that froze with its
 * connection open no longer holds the caller's stream forever: past `upstream.stream-idle-timeout-ms` the
 * relay ends with a 0.2.5 error frame in the caller's id (what the agent said before is relayed as it came).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/index.js';
import { openStream, startRelayingFacadeGateway, userMessage } from '../../support/facade.js';
import { sse, startFakeV025, type FakeV025 } from '../../support/fake-v025.js';

const IDLE_MS = 400;
let agent: FakeV025;
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await startFakeV025({
    rpc: {
      'message/stream': (call, res) => {
        const contextId = (call.params as { message: { contextId?: string } }).message.contextId ?? 'c-1';
        const working = { kind: 'status-update', taskId: 't-1', contextId, final: false, status: { state: 'working' } };
        sse(res, [`data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: working })}\n\n`], { keepOpen: true });
      },
    },
  });
  gateway = await startRelayingFacadeGateway({ upstream: { url: agent.url, 'stream-idle-timeout-ms': IDLE_MS } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

describe('a frozen 0.2.5 agent behind the relay', () => {
  it("message/stream: the agent's frame, then after the bound a 0.2.5 error frame, and the stream ends", async () => {
    const started = Date.now();
    const stream = await openStream(`${gateway.url}/`, 'message/stream', { message: userMessage({ text: 'hi' }) });
    const frames = await stream.rest();
    expect(frames[0]?.json).toMatchObject({ result: { kind: 'status-update', status: { state: 'working' } } });
    expect(frames.at(-1)?.json).toMatchObject({
      jsonrpc: '2.0',
      id: expect.anything(),
      error: { code: -32603, message: `${GATEWAY_FAILURES.upstreamTimedOut}: nothing from the agent for ${IDLE_MS} ms` },
    });
    expect(Date.now() - started).toBeLessThan(IDLE_MS + 3_000);
  });
});
