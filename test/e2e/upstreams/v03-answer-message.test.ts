/**
 * A real A2A 0.3 agent (the a2a-js 1.x server with its 0.3 compatibility on) that answers a blocking turn with
 * a Message of its task, reached over 0.3 HTTP+JSON and over 0.3 JSON-RPC, behind the gateway, and the official
 * a2a-js 1.x client. As for a 0.2.5 agent (v025-answer-message.test.ts): the caller gets the task COMPLETED with
 * that message, and GetTask says so, though the agent's own store keeps it working; a Message that names a
 * task the agent never kept stays a Message.
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { reasonOf } from '../../support/rejection.js';
import { sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { connectClient } from './sdk1-client.js';
import { STAMPED_TASK_ID, answerText, startV03AnswerAgent, type RunningV03AnswerAgent, type V03Binding } from './v03-answer-message-agent.js';

const CASES: Array<[V03Binding, TransportName]> = [
  ['HTTP+JSON', 'JSONRPC'],
  ['HTTP+JSON', 'HTTP+JSON'],
  ['JSONRPC', 'JSONRPC'],
];

describe.each(CASES)('a 0.3 agent over %s answering with a Message of its task, to a 1.0 client over %s', (agentBinding, clientBinding) => {
  let agent: RunningV03AnswerAgent;
  let gateway: TestGateway;
  let client: Client;
  const tag = `${agentBinding}-${clientBinding}`.replace(/\W/g, '').toLowerCase();

  beforeAll(async () => {
    agent = await startV03AnswerAgent(agentBinding);
    gateway = await startTestGateway({ upstream: { url: agent.url, protocol: '0.3' } });
    client = await connectClient(gateway.url, clientBinding);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('blocking: the Task COMPLETED with the answer (not a bare Message), and GetTask says COMPLETED', async () => {
    const contextId = `answer-${tag}`;
    const result = await client.sendMessage(sendRequest('answer: how many VPCs?', { contextId }));
    expect('status' in result ? [result.status?.state, textOf(result.status?.message)] : ['a Message', textOf(result)]).toEqual([
      TaskState.TASK_STATE_COMPLETED,
      answerText('answer: how many VPCs?'),
    ]);
    const task = result as Task;
    expect([task.contextId, task.history.map(textOf)]).toEqual([contextId, ['answer: how many VPCs?']]);
    // The agent's own store keeps it working: the gateway's reading of the turn stands.
    expect(agent.stored(task.id)).toBe(TaskState.TASK_STATE_WORKING);
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect([got.status?.state, textOf(got.status?.message)]).toEqual([TaskState.TASK_STATE_COMPLETED, answerText('answer: how many VPCs?')]);
    // Finished for every method: SubscribeToTask -32004, CancelTask -32002 (the record is not rewritten canceled).
    expect(await reasonOf(client.resubscribeTask({ tenant: '', id: task.id }))).toBe('UNSUPPORTED_OPERATION');
    expect(await reasonOf(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }))).toBe('TASK_NOT_CANCELABLE');
    expect((await client.getTask({ tenant: '', id: task.id, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('a Message naming a task the agent never kept stays a Message', async () => {
    const result = await client.sendMessage(sendRequest('stamp: hello', { contextId: `stamp-${tag}` }));
    expect('status' in result).toBe(false);
    if ('status' in result) return;
    expect([textOf(result), result.taskId]).toEqual([answerText('stamp: hello'), STAMPED_TASK_ID]);
  });
});
