/**
 * a2a_bridge_upstream_requests_total tells an agent that refuses the gateway's credentials (`upstream.auth`
 * wrong: HTTP 401/403) from an agent that is down: `outcome="refused"` and `outcome="error"`. Both read the same
 * to a caller ("Upstream agent is unavailable"); to an operator one is a config to fix, the other an agent to
 * restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_FAILURES } from '../../src/model/index.js';
import { rpc } from '../support/facade.js';
import { startFakeIacCode, type FakeIacCode } from '../support/fake-iac-code.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { scrape, value } from '../support/prometheus.js';

const RIGHT_TOKEN = 'the-right-token-0123456789';

let sequence = 0;
const turn = () => ({ message: { messageId: `m-outcome-${++sequence}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] } });

/** A 1.0 JSON-RPC call of `method`; the error its caller reads. */
async function call(gateway: TestGateway, method: string): Promise<unknown> {
  const answer = await rpc(`${gateway.url}/`, method, turn(), { headers: { 'a2a-version': '1.0' } });
  return answer.body.error;
}

async function upstreamCalls(gateway: TestGateway, method: string): Promise<Record<string, number>> {
  const samples = await scrape(gateway.url);
  const of = (outcome: string) => value(samples, 'a2a_bridge_upstream_requests_total', { method, outcome });
  return { ok: of('ok'), error: of('error'), refused: of('refused') };
}

describe('a2a_bridge_upstream_requests_total outcomes', () => {
  let fake: FakeIacCode;
  let refusing: TestGateway;
  let trusted: TestGateway;
  beforeAll(async () => {
    fake = await startFakeIacCode({ auth: { token: RIGHT_TOKEN } });
    refusing = await startTestGateway({ upstream: { url: fake.url, protocol: '1.0', auth: { token: 'wrong-token-0123456789abcdef' } } });
    trusted = await startTestGateway({ upstream: { url: fake.url, protocol: '1.0', auth: { token: RIGHT_TOKEN } } });
  });
  afterAll(async () => {
    await refusing?.close();
    await trusted?.close();
    await fake?.close();
  });

  it('an agent that refuses the gateway credentials: refused, for a blocking call and a stream, never error', async () => {
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      expect(await call(refusing, method), method).toStrictEqual({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable });
      expect(await upstreamCalls(refusing, method), method).toEqual({ ok: 0, error: 0, refused: 1 });
    }
  });

  it('an agent that is down: error, never refused; the same words to its caller', async () => {
    expect(await call(trusted, 'SendMessage')).toBeUndefined();
    expect(await upstreamCalls(trusted, 'SendMessage')).toEqual({ ok: 1, error: 0, refused: 0 });
    await fake.close();
    for (const method of ['SendMessage', 'SendStreamingMessage']) {
      expect(await call(trusted, method), method).toStrictEqual({ code: -32603, message: GATEWAY_FAILURES.upstreamUnavailable });
    }
    expect(await upstreamCalls(trusted, 'SendMessage')).toEqual({ ok: 1, error: 1, refused: 0 });
    expect(await upstreamCalls(trusted, 'SendStreamingMessage')).toEqual({ ok: 0, error: 1, refused: 0 });
  });
});
