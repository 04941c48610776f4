/**
 * The official a2a-js 1.x client (JSON-RPC), straight at a REAL a2a-js 1.x agent and through the gateway, on a turn
 * the agent fails after it said something (test/support/sdk-v1-failing-agent.ts):
 * - its task store fails mid-turn: the agent's SDK ends the stream with its own JSON-RPC error, -32603, in place of
 *   the turn's end, and keeps the task WORKING for good while it takes the context's next message. Through the
 *   gateway the caller read the same events and error (scrubbed), but GetTask said WORKING for ever, and every later
 *   message of the context was refused as a turn in progress: the gateway took an agent's -32603 for its own
 *   failure, after which the agent may run the turn on. The turn is now recorded FAILED with the agent's reason.
 * - its executor throws: the SDK ends the stream with a FAILED status of its own; the same through the gateway.
 */
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import {
  EXECUTOR_FAILURE_SCRUBBED,
  FAILING_AGENT_DONE,
  FAILING_AGENT_SAYS,
  STORE_FAILURE,
  STORE_FAILURE_SCRUBBED,
  startFailingAgent,
  type RunningFailingAgent,
} from '../../support/sdk-v1-failing-agent.js';
import { asTask, listRequest, sendRequest, streamedArtifactText, textOf, wireError, type Payload } from '../../support/sdk-v1-client.js';
import { connectClient, outline } from '../upstreams/sdk1-client.js';

/** What a client sees of a turn the agent fails, of its task afterwards, and of the context's next message. */
async function failedTurn(url: string, prompt: string) {
  const client = await connectClient(url, 'JSONRPC');
  const seen: Payload[] = [];
  let failure: string | undefined;
  try {
    for await (const event of client.sendMessageStream(sendRequest(prompt))) if (event.payload) seen.push(event.payload);
  } catch (error) {
    failure = wireError(error).message;
  }
  const opening = seen[0];
  if (opening?.$case !== 'task') throw new Error(`expected a Task first, got ${opening?.$case}`);
  const { id, contextId } = opening.value;
  const task = await client.getTask({ tenant: '', id, historyLength: undefined });
  const next = asTask(await client.sendMessage(sendRequest('plan another', { contextId })));
  return { client, seen, failure, task, next };
}

describe('a turn the agent fails after it said something', () => {
  let agent: RunningFailingAgent;
  let gateway: TestGateway;

  beforeAll(async () => {
    agent = await startFailingAgent();
    gateway = await startTestGateway({ upstream: { url: agent.url } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('straight at the agent whose store fails: its words, then -32603; the task left working; the context goes on', async () => {
    const direct = await failedTurn(agent.url, 'store-fails: plan a VPC');
    expect(direct.seen.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate']);
    // The SDK client reports an error event mid-stream in these words, its code among them.
    expect(direct.failure).toBe(`SSE event contained an error: ${STORE_FAILURE} (Code: -32603) Data: {}`);
    expect(direct.task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(direct.next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('through the gateway: the same events, then the agent-s -32603 scrubbed; the turn recorded failed with it; the context goes on', async () => {
    const through = await failedTurn(gateway.url, 'store-fails: plan a VPC');
    expect(through.seen.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate']);
    expect(through.seen[1]?.$case === 'statusUpdate' && textOf(through.seen[1].value.status?.message)).toBe(FAILING_AGENT_SAYS.en.working);
    expect(streamedArtifactText(through.seen)).toBe(FAILING_AGENT_SAYS.en.plan);
    expect(through.failure).toBe(`SSE event contained an error: ${STORE_FAILURE_SCRUBBED} (Code: -32603) Data: {}`);
    expect([through.task.status?.state, textOf(through.task.status?.message)]).toEqual([TaskState.TASK_STATE_FAILED, STORE_FAILURE_SCRUBBED]);
    expect([through.next.status?.state, textOf(through.next.status?.message)]).toEqual([TaskState.TASK_STATE_COMPLETED, FAILING_AGENT_DONE]);
    const listed = await through.client.listTasks(listRequest({ contextId: through.task.contextId }));
    expect(listed.tasks.map((task) => task.status?.state).sort()).toEqual([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED].sort());
  });

  it('the agent that, asked later, says it finished the task after all: GetTask through the gateway reads its word', async () => {
    const through = await failedTurn(gateway.url, 'store-fails: plan a VPC');
    expect(through.task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    await agent.finishLater(through.task.id, 'Finished after all.');
    const later = await through.client.getTask({ tenant: '', id: through.task.id, historyLength: undefined });
    expect([later.status?.state, textOf(later.status?.message)]).toEqual([TaskState.TASK_STATE_COMPLETED, 'Finished after all.']);
  });

  it('through the gateway to the agent over HTTP+JSON: the same, its google.rpc.Status mid-stream read as its -32603', async () => {
    const restAgent = await startFailingAgent({ restOnly: true });
    const restGateway = await startTestGateway({ upstream: { url: restAgent.url } });
    try {
      const through = await failedTurn(restGateway.url, 'store-fails: plan a VPC');
      expect(through.seen.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate']);
      expect(through.failure).toBe(`SSE event contained an error: ${STORE_FAILURE_SCRUBBED} (Code: -32603) Data: {}`);
      expect([through.task.status?.state, textOf(through.task.status?.message)]).toEqual([TaskState.TASK_STATE_FAILED, STORE_FAILURE_SCRUBBED]);
      expect(through.next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    } finally {
      await restGateway.close();
      await restAgent.close();
    }
  });

  it('through the gateway, an executor that throws: its SDK-s own FAILED status ends the stream; the context goes on', async () => {
    const through = await failedTurn(gateway.url, 'throws: plan a VPC');
    expect(through.failure).toBeUndefined();
    expect(through.seen.map(outline)).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate', 'statusUpdate:TASK_STATE_FAILED']);
    expect([through.task.status?.state, textOf(through.task.status?.message)]).toEqual([TaskState.TASK_STATE_FAILED, EXECUTOR_FAILURE_SCRUBBED]);
    expect(through.next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
