/**
 * A real a2a-js 0.2.5 agent that says what it is doing in a working status, then answers the turn with a Message of
 * its task, behind the gateway, and the official a2a-js 1.x client over JSON-RPC, HTTP+JSON and gRPC. A blocking
 * send is answered with the task COMPLETED with that Message (docs/version-mapping.md, A Message inside a task's
 * stream), the working status message moved into the history as an SDK's task manager moves it: once. The agent's
 * own task already holds it in its history (a2a-js files a status message there when it publishes it), and the
 * answer, the recorded task and GetTask showed it twice; the same turn streamed showed it once.
 */
import { randomUUID } from 'node:crypto';
import type { Message } from 'a2a-sdk-025';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-025/server';
import { TaskState, type Task } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { saidStatus, startSdkV025Server, type RunningSdkV025Server } from '../../support/sdk-v025-server.js';
import { sendRequest, textOf } from '../../support/sdk-v1-client.js';
import { connectBinding, StreamReader, taskIdOf } from './sdk1-client.js';

const WORKING = 'Looking up the quotas.';
const ANSWER = 'Three of ten VPCs are used.';

/** Publishes its Task, a working status that says something, then its answer as a Message of the task. */
class AnswersWithMessage implements AgentExecutor {
  execute = async ({ taskId, contextId, userMessage }: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [userMessage] });
    bus.publish(saidStatus({ taskId, contextId }, 'working', WORKING, false));
    const answer: Message = { kind: 'message', role: 'agent', messageId: randomUUID(), taskId, contextId, parts: [{ kind: 'text', text: ANSWER }] };
    bus.publish(answer);
    bus.finished();
  };
  cancelTask = async (): Promise<void> => undefined;
}

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)("a 0.2.5 agent's answer as a Message after a working status, over %s", (binding) => {
  let agent: RunningSdkV025Server;
  let gateway: TestGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await startSdkV025Server({
      card: { name: 'answers-with-message', description: 'answers a turn with a Message of its task', skills: [] },
      executor: new AnswersWithMessage(),
    });
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
    client = await connectBinding(gateway.url, binding);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  const historyOf = (task: Task) => task.history.map((message) => textOf(message));

  it('blocking: the working message is in the history once, in the answer and for GetTask, as streamed', async () => {
    const sent = (await client.sendMessage(sendRequest('how many VPCs?'))) as Task;
    expect([sent.status?.state, textOf(sent.status?.message)]).toEqual([TaskState.TASK_STATE_COMPLETED, ANSWER]);
    expect(historyOf(sent)).toEqual(['how many VPCs?', WORKING]);
    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(historyOf(got)).toEqual(['how many VPCs?', WORKING]);

    const streamed = await new StreamReader(client.sendMessageStream(sendRequest('how many VPCs?'))).rest();
    const streamedTask = await client.getTask({ tenant: '', id: taskIdOf(streamed[0]!), historyLength: undefined });
    expect(historyOf(streamedTask)).toEqual(historyOf(got));
  });
});
