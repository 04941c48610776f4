/**
 * A 1.0 SendMessage (blocking) whose caller hangs up before the turn's answer: the turn goes on at the agent and the
 * gateway waits for it, but its answer reaches nobody. Its request line says so as the facade's and the streams' do
 * (`ended: caller_left`, status 499, at info, no error code) and a2a_bridge_requests_total counts it
 * `outcome="caller_left"`. Before, the line read status 200 and the call counted `ok`, as if the caller had its answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHeldTurnsAgent, type HeldTurnsAgent } from '../support/held-turns-agent.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { addedBy } from '../support/prometheus.js';
import { waitUntil } from '../support/wait-until.js';

let agent: HeldTurnsAgent;
let gateway: TestGateway;
beforeAll(async () => {
  agent = await startHeldTurnsAgent();
  gateway = await startTestGateway({ upstream: { url: agent.url } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

const lineOf = (reqId: string) => gateway.log().find((entry) => entry.msg === 'request' && entry.reqId === reqId);
const message = (id: string) => ({ messageId: id, role: 'ROLE_USER', parts: [{ text: 'hold on' }] });
const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

const BINDINGS = [
  ['jsonrpc', '/', (id: string) => ({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message(id) } })],
  ['rest', '/message:send', (id: string) => ({ message: message(id) })],
] as const;

describe('a 1.0 SendMessage whose caller hangs up before the answer', () => {
  it.each(BINDINGS)('%s: logged and counted caller_left, not answered 200', async (surface, path, body) => {
    const reqId = `send-left-${surface}`;
    const held = agent.held().length;
    const added = await addedBy(gateway.url, 'a2a_bridge_requests_total', async () => {
      const caller = new AbortController();
      const sending = fetch(`${gateway.url}${path}`, {
        method: 'POST',
        headers: { ...HEADERS, 'x-request-id': reqId },
        body: JSON.stringify(body(reqId)),
        signal: caller.signal,
      }).catch(() => 'left');
      const [turn] = (await agent.waitForHeld(held + 1)).slice(held);
      caller.abort();
      expect(await sending).toBe('left');
      // A request sent after the hang-up and answered: the gateway has read the hang-up by then.
      await (await fetch(`${gateway.url}/health`)).text();
      turn!.complete();
      await waitUntil(async () => lineOf(reqId) !== undefined);
    });
    const line = lineOf(reqId);
    expect(line).toMatchObject({ surface, method: 'SendMessage', status: 499, ended: 'caller_left', level: 30 });
    expect(line).not.toHaveProperty('errorCode');
    expect(added({ surface, method: 'SendMessage', outcome: 'caller_left', error_code: '' })).toBe(1);
    expect(added({ surface, method: 'SendMessage', outcome: 'ok' })).toBe(0);
  });
});
