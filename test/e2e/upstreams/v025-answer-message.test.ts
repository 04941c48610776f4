/**
 * A real a2a-js 0.2.5 agent that answers a turn with a Message of its task (`answer:`: it publishes the Task,
 * works, then publishes a Message carrying the task's id; the SDK ends the turn there), behind the gateway, and
 * the official a2a-js 1.x client over JSON-RPC, HTTP+JSON and gRPC. However the turn was sent (streamed or
 * blocking), every method tells what a 1.0 agent would: the task COMPLETED with that message, though the
 * agent's own store keeps it working (docs/version-mapping.md, A Message inside a task's stream).
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { isGrpcError } from 'a2a-sdk-1/errors/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startSdkV025Agent, v025Reply, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { listRequest, sendRequest, textOf, wireError } from '../../support/sdk-v1-client.js';
import { connectBinding, outline, StreamReader } from './sdk1-client.js';

type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

/** The ErrorInfo reason a call (or a stream's first read) fails with, on any binding. */
async function refusal(call: Promise<unknown> | AsyncIterable<unknown>): Promise<string | undefined> {
  try {
    if (!(Symbol.asyncIterator in call)) await call;
    else for await (const _event of call);
  } catch (error) {
    return isGrpcError(error) ? error.reason : wireError(error).reason;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)("a 0.2.5 agent's answer given as a Message of its task, over %s", (binding: Binding) => {
  let agent: RunningSdkV025Agent;
  let gateway: TestGateway;
  let client: Client;
  const tag = binding.replace(/\W/g, '').toLowerCase();

  beforeAll(async () => {
    agent = await startSdkV025Agent();
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    client = await connectBinding(gateway.url, binding);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const getTask = (id: string): Promise<Task> => client.getTask({ tenant: '', id, historyLength: undefined });
  const listed = async (contextId: string) => (await client.listTasks(listRequest({ contextId }))).tasks;

  /** What every method says of the answered task: COMPLETED with the answer, finished for SubscribeToTask and CancelTask. */
  async function expectCompletedEverywhere(id: string, contextId: string, prompt: string): Promise<void> {
    const answer = v025Reply(prompt, 1).full;
    const got = await getTask(id);
    expect([got.status?.state, textOf(got.status?.message)]).toEqual([TaskState.TASK_STATE_COMPLETED, answer]);
    expect(got.history.map(textOf)).toEqual([prompt]);
    expect((await listed(contextId)).map((task) => [task.id, task.status?.state, textOf(task.status?.message)])).toEqual([
      [id, TaskState.TASK_STATE_COMPLETED, answer],
    ]);
    expect(await refusal(client.resubscribeTask({ tenant: '', id }))).toBe('UNSUPPORTED_OPERATION');
    expect(await refusal(client.cancelTask({ tenant: '', id, metadata: undefined }))).toBe('TASK_NOT_CANCELABLE');
    // The refused cancel left the record as it was.
    expect((await listed(contextId)).map((task) => task.status?.state)).toEqual([TaskState.TASK_STATE_COMPLETED]);
    expect((await getTask(id)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }

  it('streamed: COMPLETED with the answer, and so for GetTask, ListTasks, SubscribeToTask (-32004) and CancelTask (-32002)', async () => {
    const contextId = `answer-streamed-${tag}`;
    const streamed = await new StreamReader(client.sendMessageStream(sendRequest('answer: streamed', { contextId }))).rest();
    expect(streamed.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'statusUpdate:TASK_STATE_COMPLETED']);
    const opening = streamed[0];
    const id = opening?.$case === 'task' ? opening.value.id : '';
    // The agent's own store keeps it working: the gateway's reading of the turn stands.
    expect((await agent.stored(id, 'working')).status.state).toBe('working');
    await expectCompletedEverywhere(id, contextId, 'answer: streamed');
  });

  it('blocking: the Task COMPLETED with the answer (not a bare Message), recorded, and so for every method', async () => {
    const contextId = `answer-blocking-${tag}`;
    const result = await client.sendMessage(sendRequest('answer: blocking', { contextId }));
    expect('status' in result).toBe(true);
    const task = result as Task;
    expect([task.status?.state, textOf(task.status?.message), task.contextId]).toEqual([
      TaskState.TASK_STATE_COMPLETED,
      v025Reply('answer: blocking', 1).full,
      contextId,
    ]);
    expect(task.history.map(textOf)).toEqual(['answer: blocking']);
    await expectCompletedEverywhere(task.id, contextId, 'answer: blocking');
    // The conversation goes on.
    const next = (await client.sendMessage(sendRequest('and now?', { contextId }))) as Task;
    expect(next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a turn the agent throws in (its failure reported for a task of its own making): FAILED for GetTask too, as streamed', async () => {
    const contextId = `throws-${tag}`;
    const streamed = await new StreamReader(client.sendMessageStream(sendRequest('throw: deploy', { contextId }))).rest();
    expect(streamed.map(outline).at(-1)).toBe('statusUpdate:TASK_STATE_FAILED');
    const opening = streamed[0];
    const id = opening?.$case === 'task' ? opening.value.id : '';
    expect((await agent.stored(id, 'working')).status.state).toBe('working');
    expect((await getTask(id)).status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(await refusal(client.cancelTask({ tenant: '', id, metadata: undefined }))).toBe('TASK_NOT_CANCELABLE');
  });
});
