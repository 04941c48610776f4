/**
 * The official a2a-js 1.x client, straight at a REAL a2a-js 1.x agent and through the gateway (JSON-RPC, HTTP+JSON,
 * gRPC), on a turn whose executor publishes a second Task mid-turn: the agent's own SDK ends the stream with
 * "Stream ordering violation" (-32004) and drops the rest, so the agent keeps the task WORKING for good while it
 * takes any later message. Through the gateway, the caller read the same error, but GetTask still said WORKING
 * and every later message of the context was refused as a turn in progress ("already has a turn in progress"),
 * since the gateway asks the agent whether a turn last seen working still runs. The turn is now recorded FAILED
 * with the agent's reason (src/core/read-on.ts endsTheTurn, src/core/recording.ts), and the caller still reads the agent's error.
 */
import { TaskState } from 'a2a-sdk-1';
import { AgentEvent, type AgentExecutor } from 'a2a-sdk-1/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { promptOf, startSdkTestAgent, textPart, turnEvents, type RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { asTask, listRequest, sendRequest, textOf, wireError, type Payload } from '../../support/sdk-v1-client.js';
import { connectBinding, outline } from '../upstreams/sdk1-client.js';

const VIOLATION = 'Stream ordering violation: received task in task lifecycle stream.';

/** `break:` turns publish their Task again after the first chunk; any other turn answers and completes. */
const breaksItsStream: AgentExecutor = {
  async execute(request, bus): Promise<void> {
    const turn = turnEvents(request);
    bus.publish(request.task ? AgentEvent.task(request.task) : turn.opening());
    bus.publish(turn.status(TaskState.TASK_STATE_WORKING, 'working'));
    bus.publish(turn.artifact('reply', [textPart('first chunk')], false, false));
    if (promptOf(request.userMessage).startsWith('break:')) {
      bus.publish(
        AgentEvent.task({
          id: request.taskId,
          contextId: request.contextId,
          status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [],
          metadata: undefined,
        }),
      );
    }
    bus.publish(turn.status(TaskState.TASK_STATE_COMPLETED, 'done'));
    bus.finished();
  },
  async cancelTask(): Promise<void> {},
};

/** What a client sees of a turn whose stream the agent broke, and of the context after it. */
async function brokenTurn(url: string, binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC') {
  const client = await connectBinding(url, binding);
  const seen: Payload[] = [];
  let failure = '';
  try {
    for await (const event of client.sendMessageStream(sendRequest('break: plan a VPC'))) if (event.payload) seen.push(event.payload);
  } catch (error) {
    failure = wireError(error).message;
  }
  const opening = seen[0];
  if (opening?.$case !== 'task') throw new Error(`expected a Task first, got ${opening?.$case}`);
  const { id, contextId } = opening.value;
  const task = await client.getTask({ tenant: '', id, historyLength: undefined });
  const next = asTask(await client.sendMessage(sendRequest('plan another', { contextId })));
  return { client, seen: seen.map(outline), failure, task, next };
}

describe('a stream the agent breaks off mid-turn with its own error', () => {
  let agent: RunningTestAgent;
  let gateway: TestGateway;

  beforeAll(async () => {
    agent = await startSdkTestAgent(
      {
        name: 'breaks-its-stream',
        description: 'Publishes its Task twice when asked to break.',
        skill: { id: 'plan', name: 'Plan', description: 'Plans; break: breaks its stream.' },
        rest: true,
      },
      breaksItsStream,
    );
    gateway = await startTestGateway({ upstream: { url: agent.url }, grpc: { port: 0 } });
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it('straight at the agent: the error after the first chunk, the task left working, the context goes on', async () => {
    const direct = await brokenTurn(agent.url, 'JSONRPC');
    expect(direct.seen).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate']);
    expect(direct.failure).toContain(VIOLATION);
    expect(direct.task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(direct.next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)(
    'through the gateway over %s: the same events and error, the turn recorded failed with it, the context goes on',
    async (binding) => {
      const through = await brokenTurn(gateway.url, binding);
      expect(through.seen).toEqual(['task', 'statusUpdate:TASK_STATE_WORKING', 'artifactUpdate']);
      expect(through.failure).toContain(VIOLATION);
      expect([through.task.status?.state, textOf(through.task.status?.message)]).toEqual([TaskState.TASK_STATE_FAILED, VIOLATION]);
      expect([through.next.status?.state, textOf(through.next.status?.message)]).toEqual([TaskState.TASK_STATE_COMPLETED, 'done']);
      const listed = await through.client.listTasks(listRequest({ contextId: through.task.contextId }));
      expect(listed.tasks.map((task) => task.status?.state).sort()).toEqual([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED].sort());
    },
  );
});
