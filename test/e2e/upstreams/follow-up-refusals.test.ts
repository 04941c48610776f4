/**
 * A follow-up the recorded task cannot take is refused by the gateway, in a2a-js 1.x's terms, whatever
 * the agent behind it would have answered (a 0.2.5 agent says -32600 "Invalid Request" to a finished task,
 * and takes a message whose context is not its task's).
 */
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../../src/app.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createLogger } from '../../../src/log.js';
import { startSdkV025Agent, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { asTask, rejectionOf, sendRequest, wireCode, type TransportName } from '../../support/sdk-v1-client.js';
import { connectClient } from './sdk1-client.js';

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a follow-up over %s that the task cannot take', (transport: TransportName) => {
  let agent: RunningSdkV025Agent;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await startSdkV025Agent();
    gateway = await startGateway(defaultConfig({ port: 0, host: '127.0.0.1', upstream: { url: agent.url } }), createLogger('silent'));
    client = await connectClient(gateway.url, transport);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('a finished task takes no more messages: UnsupportedOperation, sent or streamed, and the agent is not asked', async () => {
    const done = asTask(await client.sendMessage(sendRequest('hello')));
    const asked = agent.received.length;
    for (const call of [
      client.sendMessage(sendRequest('more', { taskId: done.id })),
      client.sendMessageStream(sendRequest('more', { taskId: done.id })),
    ]) {
      const refusal = await rejectionOf(call);
      expect(refusal).toMatchObject({ code: wireCode(transport, -32004), reason: 'UNSUPPORTED_OPERATION' });
      expect(refusal.message).toContain(`Task ${done.id} is in a terminal state`);
    }
    expect(agent.received.length).toBe(asked);
  });

  it('a message naming a task and another context is refused: invalid params, the task left waiting', async () => {
    const other = asTask(await client.sendMessage(sendRequest('hello')));
    const waiting = asTask(await client.sendMessage(sendRequest('ask: which region?')));
    const refusal = await rejectionOf(client.sendMessage(sendRequest('north', { taskId: waiting.id, contextId: other.contextId })));
    expect(refusal).toMatchObject({ code: wireCode(transport, -32602), reason: 'INVALID_PARAMS' });
    expect(refusal.message).toContain(`not ${other.contextId}`);
    const answered = asTask(await client.sendMessage(sendRequest('north', { taskId: waiting.id, contextId: waiting.contextId })));
    expect(answered.id).toBe(waiting.id);
  });
});
