/**
 * A 1.0 caller answers a real a2a-js 0.2.5 agent's question (input-required) without waiting for the turn
 * (`returnImmediately`), over JSON-RPC, HTTP+JSON and gRPC. The SDK's non-blocking `message/send` answers only
 * with a Task or Message its executor publishes, and an executor following its samples publishes only
 * status-updates when it goes on with a task: the caller was told the call failed while the agent ran its
 * answer. The gateway streams such a turn instead and answers with the task as the agent first reports it
 * (src/upstream/v025/immediate.ts).
 */
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkV025Agent, v025Reply, V025_QUESTION, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { asTask, sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { connectBinding, connectClient } from './sdk1-client.js';

const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC'] as const;
/** A `slow:` turn takes seconds at this pace (a dozen chunks). */
const SLOW_CHUNK_MS = 400;
type Binding = (typeof BINDINGS)[number];

const withoutWaiting = (request: SendMessageRequest): SendMessageRequest => ({
  ...request,
  configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
});

describe('returnImmediately in front of an a2a-js 0.2.5 agent', () => {
  let agent: RunningSdkV025Agent;
  let gateway: TestGateway;
  const clients = new Map<Binding, Client>();

  beforeAll(async () => {
    agent = await startSdkV025Agent({ slowChunkDelayMs: SLOW_CHUNK_MS });
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    for (const binding of BINDINGS) clients.set(binding, await connectBinding(gateway.url, binding));
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it.each(BINDINGS)('over %s: the answer to a question returns the task, and GetTask then shows the reply', async (binding) => {
    const client = clients.get(binding)!;
    const contextId = `immediate-${binding.replace(/\W/g, '').toLowerCase()}`;
    const asked = asTask(await client.sendMessage(sendRequest('ask: which region?', { contextId })));
    expect([asked.status?.state, textOf(asked.status?.message)]).toEqual([TaskState.TASK_STATE_INPUT_REQUIRED, V025_QUESTION]);

    const answered = asTask(await client.sendMessage(withoutWaiting(sendRequest('north', { contextId, taskId: asked.id }))));
    expect(answered.id).toBe(asked.id);
    // As the agent has it when it first reports on the answer: at work, or done already (it is quick).
    expect([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]).toContain(answered.status?.state);

    await agent.stored(asked.id, 'completed');
    const done = await client.getTask({ tenant: '', id: asked.id, historyLength: 0 });
    expect([done.status?.state, textOf(done.status?.message)]).toEqual([TaskState.TASK_STATE_COMPLETED, v025Reply('north', 2).full]);
  });

  it('a gateway that stops ends the turns it still reads instead of waiting for them', async () => {
    const stopping = await startTestGateway({ upstream: { url: agent.url } });
    const client = await connectClient(stopping.url, 'JSONRPC');
    const asked = asTask(await client.sendMessage(sendRequest('ask: which region?', { contextId: 'immediate-stop' })));
    const answered = asTask(await client.sendMessage(withoutWaiting(sendRequest('slow: north', { contextId: 'immediate-stop', taskId: asked.id }))));
    expect(answered.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const started = Date.now();
    await stopping.close();
    // The turn still has seconds to go (SLOW_CHUNK_MS a chunk, over ten chunks): half of them is the bound.
    expect(Date.now() - started).toBeLessThan(SLOW_CHUNK_MS * 5);
  });

  it('with upstream.connections 2, turns past the one read in the background are sent non-blocking, and a GetTask is not kept waiting for them', async () => {
    const capped = await startTestGateway({ upstream: { url: agent.url, connections: 2 } });
    try {
      const client = await connectClient(capped.url, 'JSONRPC');
      const started = Date.now();
      const turns = await Promise.all(
        ['one', 'two'].map(async (word) =>
          asTask(await client.sendMessage(withoutWaiting(sendRequest(`slow: ${word}`, { contextId: `immediate-capped-${word}` })))),
        ),
      );
      const got = await client.getTask({ tenant: '', id: turns[0]!.id, historyLength: 0 });
      // The turns take seconds (a dozen chunks of SLOW_CHUNK_MS): before, both held the two connections and the GetTask waited for them.
      expect(Date.now() - started).toBeLessThan(SLOW_CHUNK_MS * 5);
      for (const turn of turns) expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(turn.status?.state);
      expect(got.id).toBe(turns[0]!.id);
    } finally {
      await capped.close();
    }
  });
  it('with upstream.connections 1, an answer to a question returns the task, alone or sent while another turn is read (it waits for that turn)', async () => {
    // An agent of its own, whose `slow:` turns take under a second.
    const quick = await startSdkV025Agent({});
    const single = await startTestGateway({ upstream: { url: quick.url, connections: 1 } });
    try {
      const client = await connectClient(single.url, 'JSONRPC');
      const answer = async (contextId: string, taskId: string): Promise<TaskState | undefined> =>
        asTask(await client.sendMessage(withoutWaiting(sendRequest('north', { contextId, taskId })))).status?.state;
      const asked: Array<{ id: string }> = [];
      for (const contextId of ['immediate-single-alone', 'immediate-single-behind'])
        asked.push(asTask(await client.sendMessage(sendRequest('ask: which region?', { contextId }))));
      const states = [await answer('immediate-single-alone', asked[0]!.id)];
      await quick.stored(asked[0]!.id, 'completed');
      asTask(await client.sendMessage(withoutWaiting(sendRequest('slow: other', { contextId: 'immediate-single-other' }))));
      states.push(await answer('immediate-single-behind', asked[1]!.id));
      // Its first event, as the agent's stream opens it: SUBMITTED (before the update saying working), or later.
      for (const state of states)
        expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]).toContain(state);
      for (const { id } of asked) await quick.stored(id, 'completed');
    } finally {
      await single.close();
      await quick.close();
    }
  });
});
