/**
 * What the on-call operator reads of a Bailian message/send (deploy/README.md, Logs and Metrics): the request line
 * carries the state the user was answered with, and for a turn the agent failed why, at warn (the answer is an
 * HTTP 200 JSON-RPC result); a user who hung up is counted apart from the turns the agent failed
 * (reason="caller_left"), so the failed-turns alert stays quiet; and the gateway's own share of the call is timed,
 * though the facade reads the turn upstream as a stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { parse, value } from '../support/prometheus.js';

const WARN = 40;
const INFO = 30;

let fake: FakeIacCode;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startFakeIacCode({});
  gateway = await startTestGateway({ upstream: { url: fake.url }, bailian: { 'base-path': '/bailian' } });
});
afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

let sequence = 0;

/** A facade message/send saying `text`, its answer, and the request id its log line is found by. */
function send(text: string, signal?: AbortSignal): { reqId: string; answer: Promise<Response> } {
  const reqId = `facade-turn-${++sequence}`;
  const message = { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text }] };
  const answer = fetch(`${gateway.url}/bailian`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': reqId },
    body: JSON.stringify({ jsonrpc: '2.0', id: sequence, method: 'message/send', params: { message } }),
    ...(signal ? { signal } : {}),
  });
  return { reqId, answer };
}

const lineOf = (reqId: string): Record<string, unknown> | undefined =>
  gateway.log().find((entry) => entry.msg === 'request' && entry.reqId === reqId);

const scrape = async () => parse(await (await fetch(`${gateway.url}/metrics`)).text());

/** The facade's failed turns as counted, by reason ('' for none). */
async function failedTurns(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const sample of await scrape()) {
    if (sample.name !== 'a2a_bridge_task_states_total' || sample.labels.surface !== 'v025' || sample.labels.state !== 'failed') continue;
    const reason = sample.labels.reason ?? '';
    counts[reason] = (counts[reason] ?? 0) + sample.value;
  }
  return counts;
}

describe('a Bailian message/send as the operator sees it', () => {
  it('logs the state a completed turn was answered with, at info', async () => {
    const { reqId, answer } = send('hello');
    const body = (await (await answer).json()) as { result: { status: { state: string } } };
    expect(body.result.status.state).toBe('completed');
    expect(lineOf(reqId)).toMatchObject({ level: INFO, surface: 'v025', method: 'message/send', state: 'completed' });
    expect(lineOf(reqId)).not.toHaveProperty('cause');
  });

  it('logs a turn the agent failed at warn, with what its user read of why, scrubbed', async () => {
    const { reqId, answer } = send('x [fault:error-event after=2]');
    const body = (await (await answer).json()) as { result: { status: { state: string } } };
    expect(body.result.status.state).toBe('failed');
    const line = lineOf(reqId);
    expect(line).toMatchObject({ level: WARN, state: 'failed' });
    expect(line).not.toHaveProperty('stateReason');
    expect(line?.cause).toContain('RuntimeError');
    // The agent's error names a local path and a bearer token: neither reaches the log.
    expect(JSON.stringify(line)).not.toMatch(/alice|sk-live/);
  });

  it('counts a user who hung up reason="caller_left", not among the turns the agent failed', async () => {
    const before = await failedTurns();
    const leaving = new AbortController();
    const { reqId, answer } = send('x [fault:quiet after=2 ms=1500]', leaving.signal);
    const left = answer.catch(() => 'left');
    await new Promise((resolve) => setTimeout(resolve, 400));
    leaving.abort();
    expect(await left).toBe('left');
    await expect.poll(() => lineOf(reqId), { timeout: 5_000 }).toBeDefined();
    const after = await failedTurns();
    expect((after[''] ?? 0) - (before[''] ?? 0)).toBe(0);
    expect((after.caller_left ?? 0) - (before.caller_left ?? 0)).toBe(1);
    // Nobody read it and the agent did not fail: not a warning.
    expect(lineOf(reqId)).toMatchObject({ level: INFO, state: 'failed', stateReason: 'caller_left' });
    expect(lineOf(reqId)).not.toHaveProperty('cause');
  });

  it('times the gateway share of a message/send the facade reads upstream as a stream', async () => {
    const count = async () => value(await scrape(), 'a2a_bridge_gateway_added_seconds_count', { surface: 'v025' });
    const before = await count();
    const { answer } = send('hello');
    await (await answer).text();
    expect((await count()) - before).toBe(1);
    const samples = await scrape();
    // The upstream share is the turn's whole stream: the gateway's own is a small part of the call.
    const added = value(samples, 'a2a_bridge_gateway_added_seconds_sum', { surface: 'v025' });
    const whole = value(samples, 'a2a_bridge_request_duration_seconds_sum', { surface: 'v025', method: 'message/send' });
    expect(added).toBeLessThan(whole);
  });
});
