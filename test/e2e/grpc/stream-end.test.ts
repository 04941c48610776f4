/**
 * gRPC streams end in a protocol answer like the HTTP bindings' (test/e2e/hardening/stream-end.test.ts):
 * an upstream that accepts and stays quiet gets the response headers at once and a status at the
 * first-event bound; one that stops mid-turn ends with INVALID_AGENT_RESPONSE.
 */
import { Metadata, credentials, makeClientConstructor, status, type Client } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AService, GRPC_METHODS, requestMessage } from '../../../src/protocol/grpc.js';
import { startFaultyAgent, type FaultyAgent } from '../../support/faulty-agent.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

/** Long, so that headers at once are told from headers held until this bound however busy the host (half of it). */
const FIRST_EVENT_TIMEOUT_MS = 4_000;

type Method = (...args: unknown[]) => any;
type Raw = Client & { sendStreamingMessage: Method };

describe('gRPC streams of a faulty upstream', () => {
  let agent: FaultyAgent;
  let gateway: TestGateway;
  let client: Raw;
  beforeAll(async () => {
    agent = await startFaultyAgent();
    gateway = await startTestGateway({ upstream: { url: agent.url, 'first-event-timeout-ms': FIRST_EVENT_TIMEOUT_MS }, grpc: { port: 0 } });
    const Constructor = makeClientConstructor(A2AService, 'A2AService');
    client = new Constructor(gateway.grpcAddress!, credentials.createInsecure()) as unknown as Raw;
  });
  afterAll(async () => {
    client?.close();
    await gateway?.close();
    await agent?.close();
  });

  function stream(text: string) {
    const md = new Metadata();
    md.set('a2a-version', '1.0');
    const request = requestMessage(GRPC_METHODS.sendStreamingMessage, {
      message: { messageId: `g-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] },
    });
    const started = Date.now();
    const call = client.sendStreamingMessage(request, md);
    const headersAt = new Promise<number>((resolve) => call.on('metadata', () => resolve(Date.now() - started)));
    const events: unknown[] = [];
    call.on('data', (event: unknown) => events.push(event));
    const ended = new Promise<{ code: number; details: string; ms: number }>((resolve) => {
      call.on('error', (error: { code: number; details: string }) => resolve({ code: error.code, details: error.details, ms: Date.now() - started }));
      call.on('end', () => resolve({ code: status.OK, details: '', ms: Date.now() - started }));
    });
    return { headersAt, ended, events };
  }

  it('quiet after accepting: headers at once, then a status at the first-event bound', async () => {
    const { headersAt, ended } = stream('mode:quiet');
    expect(await headersAt).toBeLessThan(FIRST_EVENT_TIMEOUT_MS / 2);
    const end = await ended;
    expect(end.code).toBe(status.DEADLINE_EXCEEDED);
    expect(end.details).toMatch(/no event within/);
    expect(end.ms).toBeGreaterThanOrEqual(FIRST_EVENT_TIMEOUT_MS - 100);
  });

  it('truncated: the events that came, then INVALID_AGENT_RESPONSE instead of OK', async () => {
    const { ended, events } = stream('mode:truncated');
    const end = await ended;
    expect(events.length).toBe(2);
    expect(end.code).not.toBe(status.OK);
    expect(end.details).toMatch(/before the task reached a final or interrupted state/);
  });
});
