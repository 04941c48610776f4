/**
 * A real a2a-js 0.2.5 agent whose task store fails mid-turn, after it said something: its SDK ends the stream with its
 * own JSON-RPC error (-32603, the store's message) in place of the turn's end, and keeps the task working for good.
 * Through the gateway, the official a2a-js 1.x client read the events and the error, but GetTask said working for
 * ever and the context's next message was refused as a turn in progress: the gateway took the agent's -32603 for its
 * own failure. The 0.2.5 client marks it as the agent's own too (`reported`): the turn is recorded failed with it.
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import type { Task as V025Task } from 'a2a-sdk-025';
import { InMemoryTaskStore, type AgentExecutor } from 'a2a-sdk-025/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, sendRequest, textOf, wireError, type Payload } from '../../support/sdk-v1-client.js';
import { saidStatus, startSdkV025Server, type RunningSdkV025Server } from '../../support/sdk-v025-server.js';
import { connectClient, outline } from './sdk1-client.js';

const UNSAVED = 'Saving the plan.';
const STORE_FAILURE = 'connect ECONNREFUSED /var/lib/agent/tasks.sock';

/** The SDK's in-memory store, failing to save a task whose status says UNSAVED (a database gone mid-turn). */
class FailingStore extends InMemoryTaskStore {
  override async save(task: V025Task): Promise<void> {
    const said = task.status.message?.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
    if (said === UNSAVED) throw new Error(STORE_FAILURE);
    return super.save(task);
  }
}

/** `store-fails` turns say something, then publish what the store fails to save; any other turn completes. */
const executor: AgentExecutor = {
  async execute(request, bus): Promise<void> {
    const ids = { taskId: request.taskId, contextId: request.contextId };
    const prompt = request.userMessage.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
    if (!request.task) {
      bus.publish({ kind: 'task', id: ids.taskId, contextId: ids.contextId, status: { state: 'submitted' }, history: [request.userMessage] });
    }
    if (prompt.startsWith('store-fails')) {
      bus.publish(saidStatus(ids, 'working', 'Checking the VPC quota.', false));
      bus.publish(saidStatus(ids, 'working', UNSAVED, false));
    }
    bus.publish(saidStatus(ids, 'completed', 'done', true));
    bus.finished();
  },
  async cancelTask(): Promise<void> {},
};

describe('a 0.2.5 agent whose store fails mid-turn, through the gateway to a 1.x client', () => {
  let agent: RunningSdkV025Server;
  let gateway: TestGateway;
  beforeAll(async () => {
    agent = await startSdkV025Server({
      card: { name: 'failing-v025', description: 'Its store fails mid-turn.', skills: [] },
      executor,
      store: new FailingStore(),
    });
    gateway = await startTestGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('the events, then its -32603; the turn recorded failed with it; the context goes on', async () => {
    const client = await connectClient(gateway.url, 'JSONRPC');
    const seen: Payload[] = [];
    let failure = '';
    try {
      for await (const event of client.sendMessageStream(sendRequest('store-fails: plan a VPC', { contextId: randomUUID() }))) {
        if (event.payload) seen.push(event.payload);
      }
    } catch (error) {
      failure = wireError(error).message;
    }
    expect(seen.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING']);
    expect(failure).toContain('connect ECONNREFUSED [path] (Code: -32603)');
    const opening = seen[0];
    if (opening?.$case !== 'task') throw new Error('expected a Task first');
    const task = await client.getTask({ tenant: '', id: opening.value.id, historyLength: undefined });
    expect([task.status?.state, textOf(task.status?.message)]).toEqual([TaskState.TASK_STATE_FAILED, 'connect ECONNREFUSED [path]']);
    const next = asTask(await client.sendMessage(sendRequest('plan another', { contextId: opening.value.contextId })));
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
