/**
 * The relaying facade (`a2a-0.2.5` profile, a 0.2.5 agent's answers passed on as they are) keeps a conversation
 * its caller's even when the turn that opened it recorded nothing: the caller's message timed out at the gateway
 * while the a2a-js 0.2.5 agent kept it in the context. Another key naming that context is refused before the
 * agent hears it (-32602), and the first caller goes on there. Before, a context was owned only once a relayed
 * task of it was recorded, so the other key's message went on in the first caller's conversation.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { startRelayingFacadeGateway } from '../../support/facade.js';
import { startSdkV025Agent, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';

let agent: RunningSdkV025Agent;
let gateway: RunningGateway;

beforeAll(async () => {
  agent = await startSdkV025Agent({ slowChunkDelayMs: 300 });
  gateway = await startRelayingFacadeGateway({
    upstream: { url: agent.url, 'request-timeout-ms': 200 },
    bailian: { 'api-keys': ['key-a', 'key-b'] },
  });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

async function send(key: string, text: string, contextId: string): Promise<any> {
  const response = await fetch(gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text }], contextId } },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  return response.json();
}

describe('a relayed turn that timed out leaves its context its caller’s', () => {
  it('another key naming the context is refused before the agent hears it; the first key goes on', async () => {
    const contextId = `conv-${randomUUID()}`;
    const first = await send('key-a', 'slow: the secret plan', contextId);
    expect(first.error?.message).toMatch(/timed out/i);

    const messagesBefore = agent.received.filter((request) => request.rpcMethod === 'message/send').length;
    const other = await send('key-b', 'hello', contextId);
    expect(other.result).toBeUndefined();
    expect(other.error).toMatchObject({ code: -32602, message: expect.stringContaining(contextId) });
    expect(agent.received.filter((request) => request.rpcMethod === 'message/send')).toHaveLength(messagesBefore);

    const again = await send('key-a', 'hello again', contextId);
    expect(again.error).toBeUndefined();
    expect(again.result.contextId).toBe(contextId);
  });
});
