/**
 * A real a2a-js 0.2.5 agent whose executor throws before it opens its task (a model endpoint down): its SDK fails a
 * task of its own making, which it never stores. Sent blocking, the answer is that Task, the caller's message in
 * its history; streamed, a failed status-update alone, from which the gateway opens the 1.0 stream with a Task of
 * the ids. Either way the official a2a-js 1.x client reads the same turn with GetTask (answered from the gateway's
 * record: the agent does not know the task): failed, with its own message in the history.
 */
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, sendRequest, textOf, type TransportName } from '../../support/sdk-v1-client.js';
import { startSdkV025Agent, V025_THROW_AT_ONCE_PREFIX, type RunningSdkV025Agent } from '../../support/sdk-v025-agent.js';
import { connectGrpc } from '../grpc/grpc-client.js';
import { connectClient, StreamReader } from './sdk1-client.js';

const PROMPT = `${V025_THROW_AT_ONCE_PREFIX} deploy the VPC`;

let agent: RunningSdkV025Agent;
let gateway: TestGateway;
beforeAll(async () => {
  agent = await startSdkV025Agent();
  gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
});
afterAll(async () => {
  await gateway?.close();
  await agent?.close();
});

const CLIENTS: Record<TransportName | 'GRPC', () => Promise<Client>> = {
  JSONRPC: () => connectClient(gateway.url, 'JSONRPC'),
  'HTTP+JSON': () => connectClient(gateway.url, 'HTTP+JSON'),
  GRPC: () => connectGrpc(gateway.url),
};

/** What GetTask tells of a turn: its state, the caller's messages in its history, the failure's reason. */
const told = (task: Task) => ({
  state: TaskState[task.status?.state ?? 0],
  asked: task.history.filter((message) => textOf(message) === PROMPT).length,
  failedWith: textOf(task.status?.message).startsWith('Agent execution error: '),
});

describe.each(Object.keys(CLIENTS))('a 0.2.5 agent failing before its task opens, a 1.x client over %s', (name) => {
  let client: Client;
  beforeAll(async () => {
    client = await CLIENTS[name as keyof typeof CLIENTS]();
  });

  it('sent blocking: GetTask keeps the caller message', async () => {
    const sent = asTask(await client.sendMessage(sendRequest(PROMPT)));
    const read = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(told(read)).toEqual({ state: 'TASK_STATE_FAILED', asked: 1, failedWith: true });
  });

  it('streamed: GetTask tells the turn as the blocking one does, the caller message kept', async () => {
    const payloads = await new StreamReader(client.sendMessageStream(sendRequest(PROMPT))).rest();
    const opened = payloads[0];
    if (opened?.$case !== 'task') throw new Error(`expected the stream to open with a Task, got ${opened?.$case}`);
    expect(payloads.map((payload) => payload.$case)).toEqual(['task', 'statusUpdate']);
    const read = await client.getTask({ tenant: '', id: opened.value.id, historyLength: undefined });
    expect(told(read)).toEqual({ state: 'TASK_STATE_FAILED', asked: 1, failedWith: true });
  });
});
