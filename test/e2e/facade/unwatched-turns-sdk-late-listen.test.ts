/**
 * A cut turn's rest followed live, in front of an a2a-js 0.2.5 agent whose SDK loses what the turn says between its
 * resubscription's task load and its listening (widened here past a chunk's pause: resubscribeListensLateMs). The
 * agent closes the turn with its reply whole: what the user read before the cut and the rest read together are the
 * agent's reply, every word once, the chunk the subscription lost included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { rpc, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { startSdkV025Agent, v025Reply, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';

const STILL_WORKING = 'but it is still working on your request.';
const REST_LEAD = /^Here is the rest of the reply to your previous message[^\n]*\n\n/;
const PROMPT = 'slow: make a vpc in cn-hangzhou with three vswitches';

function withoutStillWorking(text: string): { read: string; cut: boolean } {
  const cut = text.includes(STILL_WORKING);
  return { read: cut ? text.slice(0, text.lastIndexOf('\n')) : text, cut };
}

describe('the rest of a cut turn followed live, a chunk lost by the agent SDK as it subscribed', () => {
  let agent: RunningSdkV025Agent;
  // A chunk's pause is 100 ms: a subscription that listens 150 ms after it read the task misses one.
  let gateway: RunningGateway;
  beforeAll(async () => {
    agent = await startSdkV025Agent({ slowChunkDelayMs: 100, resubscribeListensLateMs: 150 });
    // The bound cuts the reply among its dots: the rest is dots alone, which the agent's closing message ends with too.
    gateway = await startFacadeGateway({ upstream: { url: agent.url, 'request-timeout-ms': 1850 } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('message/send past its bound, the next message while the agent still works: the whole reply, once', async () => {
    const contextId = 'ctx-late-listen';
    const first = await rpc(gateway.url, 'message/send', { message: userMessage({ text: PROMPT, contextId }) });
    const { read, cut } = withoutStillWorking(sentText(first.body.result));
    expect(cut).toBe(true);
    let rest = '';
    for (let message = 0; message < 20; message++) {
      const { body } = await rpc(gateway.url, 'message/send', { message: userMessage({ text: 'continue', contextId }) });
      const text = sentText(body.result);
      expect(text).toMatch(REST_LEAD);
      const next = withoutStillWorking(text.replace(REST_LEAD, ''));
      rest += next.read;
      if (!next.cut) break;
    }
    expect(agent.received.some((request) => request.rpcMethod === 'tasks/resubscribe')).toBe(true);
    expect(read + rest).toBe(v025Reply(PROMPT, 1).full);
  });
});
