/**
 * `upstream.connections: N` is the operator's promise to the agent (iac-code takes a few connections at most): the
 * gateway never holds more than N connections to it at once, whichever of its calls to the agent are running. The
 * A2A calls, iac-code's own routes (the agent routes the 1.0 surface serves and the pipeline-state reads of the
 * 0.2.5 facade) and the 0.2.5 facade's relayed calls each had a pool of their own, each capped at N: a stream
 * holding the only connection left the others free to open another. They now share the agent's one pool: a call
 * that finds its connection held waits for it, and past `upstream.queue-timeout-ms` is refused (an A2A call as
 * busy, an agent route as the agent not reached).
 */
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-025/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { GATEWAY_FAILURES } from '../../../src/model/errors.js';
import { countedDoor } from '../../upstream/agent-connections.js';
import { openStream, rpc, startFacadeGateway, startRelayingFacadeGateway, userMessage } from '../../support/facade.js';
import { startFakeIacCode } from '../../support/fake-iac-code.js';
import { saidStatus, startSdkV025Server } from '../../support/sdk-v025-server.js';

/** One connection to the agent; a call waiting for it is refused after a second, well before any test bound. */
const ONE_CONNECTION = { connections: 1, 'queue-timeout-ms': 1_000 };
const HOLD = 'hold on';
const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

/** A 1.0 stream through the gateway, once its first event (the task) has come: it then holds its agent connection. */
async function heldV1Stream(gatewayUrl: string): Promise<string> {
  const controller = new AbortController();
  open.push({ close: async () => controller.abort() });
  const response = await fetch(`${gatewayUrl}/message:stream`, {
    method: 'POST',
    headers: { ...V1, accept: 'text/event-stream' },
    body: JSON.stringify({ message: { messageId: 'held', role: 'ROLE_USER', parts: [{ text: 'hold on' }] } }),
    signal: controller.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  return (JSON.parse(first.slice(first.indexOf('{'))) as { task: { id: string } }).task.id;
}

describe('upstream.connections: 1, a stream holding the only connection', () => {
  it("iac-code's own routes wait for it and are refused, not given a second connection", async () => {
    const fake = await startFakeIacCode();
    open.push(fake);
    const door = await countedDoor(fake.url);
    open.push(door);
    const gateway: RunningGateway = await startFacadeGateway({ upstream: { url: door.url, ...ONE_CONNECTION } });
    open.push(gateway);
    fake.injectFault({ name: 'hang-mid-stream', after: 1 }, { method: 'SendStreamingMessage' });
    const taskId = await heldV1Stream(gateway.url);

    const state = await fetch(`${gateway.url}/iac-code/pipeline/state?taskId=${taskId}&afterSequence=0`, { headers: V1 });
    const readiness = await fetch(`${gateway.url}/iac-code/readiness`, { headers: V1 });
    // The agent routes' one answer to a call that did not reach the agent (agent-routes.ts).
    const refused = { status: 503, body: { error: GATEWAY_FAILURES.upstreamBusy } };
    const answered = async (response: Response) => ({ status: response.status, body: await response.json() });
    expect({ state: await answered(state), readiness: await answered(readiness), agentConnections: door.peak() }).toEqual({
      state: refused,
      readiness: refused,
      agentConnections: 1,
    });
  }, 20_000);

  it("the 0.2.5 facade's relayed calls and the A2A calls share it", async () => {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    // a2a-js 0.2.5: a turn told HOLD opens and then waits, its stream open, until the test ends; any other is done at once.
    const executor: AgentExecutor = {
      execute: async ({ taskId, contextId, userMessage: said }: RequestContext, bus: ExecutionEventBus) => {
        bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [said] });
        bus.publish(saidStatus({ taskId, contextId }, 'working', 'thinking', false));
        if (said.parts.some((part) => part.kind === 'text' && part.text === HOLD)) await released;
        bus.publish(saidStatus({ taskId, contextId }, 'completed', 'done', true));
        bus.finished();
      },
      cancelTask: async () => undefined,
    };
    const agent = await startSdkV025Server({ card: { name: 'held', description: 'held', skills: [] }, executor, onClose: release });
    open.push(agent);
    const door = await countedDoor(agent.url);
    open.push(door);
    const gateway = await startRelayingFacadeGateway({ upstream: { url: door.url, ...ONE_CONNECTION } });
    open.push(gateway);
    const relayed = await openStream(`${gateway.url}/`, 'message/stream', { message: userMessage({ text: HOLD }) });
    open.push({ close: async () => relayed.abort() });
    expect((await relayed.next())?.json.result.kind).toBe('task');

    const sent = await fetch(`${gateway.url}/message:send`, {
      method: 'POST',
      headers: V1,
      body: JSON.stringify({ message: { messageId: 'second', role: 'ROLE_USER', parts: [{ text: 'me too' }] } }),
    });
    const relayedSend = await rpc(`${gateway.url}/`, 'message/send', { message: userMessage({ text: 'and me' }) });
    expect({ sent: sent.status, relayedSend: relayedSend.body.error?.message, agentConnections: door.peak() }).toEqual({
      sent: 503,
      relayedSend: GATEWAY_FAILURES.upstreamBusy,
      agentConnections: 1,
    });
  }, 20_000);
});
