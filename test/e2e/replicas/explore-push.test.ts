/**
 * A push config created through replica A (the a2a-js 1.x client's CreateTaskPushNotificationConfig, each
 * binding) is the task's on every replica: the task finishing through replica B (the answer to the agent's
 * question sent there, or A stopped while it streams the turn) is pushed once, with what the agent said last;
 * and one made (or deleted) through B while A streams the turn counts when A's stream ends.
 */
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { beforeAll, describe, expect, it, onTestFinished as onFinished } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { requireRedis } from '../../support/redis.js';
import { asTask, payloadRef, sendRequest, StreamReader } from '../../support/sdk-v1-client.js';
import { Receiver } from '../push/harness.js';
import { askWords, longWords } from './deploy-agent.js';
import { BINDINGS, sdkClient, startDeployment, type Deployment } from './deployment.js';

beforeAll(requireRedis);

/** A deployment and a webhook receiver of the test's own (the tests run side by side), closed once it is over. */
async function ownSetup(
  onTestFinished: typeof onFinished,
  settings?: Record<string, unknown>,
): Promise<{ deployment: Deployment<TestGateway>; receiver: Receiver }> {
  const deployment = await startDeployment(settings ? { settings } : {});
  onTestFinished(() => deployment.close());
  const receiver = await new Receiver().up();
  onTestFinished(() => receiver.down());
  return { deployment, receiver };
}

async function pushTo(receiver: Receiver, client: Client, taskId: string, path: string): Promise<void> {
  const created = await client.createTaskPushNotificationConfig({
    tenant: '',
    id: `hook-${path.slice(1)}`,
    taskId,
    url: `${receiver.url}${path}`,
    token: `token-${path.slice(1)}`,
    authentication: undefined,
  });
  expect(created.taskId).toBe(taskId);
}

/** The state and the agent's words of a pushed StreamResponse (ProtoJSON, as the receiver reads it). */
function pushedLine(body: unknown): string {
  type Status = { state?: string; message?: { parts?: Array<{ text?: string }> } };
  const pushed = body as { task?: { status?: Status }; statusUpdate?: { status?: Status } };
  const status = pushed.task?.status ?? pushed.statusUpdate?.status;
  const words = status?.message?.parts?.map((part) => part.text ?? '').join('') ?? '';
  return `${status?.state ?? 'no status'}: ${words}`;
}

/** Waits a moment past the first delivery to `path`, so that a second one would have come. */
async function deliveredOnce(receiver: Receiver, path: string): Promise<string[]> {
  await receiver.waitFor(path, 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  return receiver.at(path).map((delivery) => pushedLine(delivery.json));
}

// Each test on a deployment (its own Redis prefix) and a receiver of its own: they run side by side.
describe.concurrent('a push config made on A', () => {
  it.for(BINDINGS)('over %s: the answer to the question sent on B pushes the completed task once', async (binding, { expect, onTestFinished }) => {
    const { deployment, receiver } = await ownSetup(onTestFinished);
    const [onA, onB] = [await sdkClient(deployment.a, binding), await sdkClient(deployment.b, binding)];
    const asked = await new StreamReader(onA.sendMessageStream(sendRequest('ask mq'))).rest();
    const { taskId, contextId } = payloadRef(asked[0]!);
    await pushTo(receiver, onA, taskId, '/answered');
    expect((await onB.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'hook-answered' })).url).toBe(`${receiver.url}/answered`);

    const task = asTask(await onB.sendMessage(sendRequest('eu-central-1', { taskId, contextId })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await deliveredOnce(receiver, '/answered')).toEqual([`TASK_STATE_COMPLETED: ${askWords('mq', 'eu-central-1').done}`]);
  });

  it('A stopped while it streams the turn: the turn finishing at the agent is pushed once, through B', async ({ expect, onTestFinished }) => {
    const { deployment, receiver } = await ownSetup(onTestFinished, { 'drain-timeout-ms': 200 });
    const onA = await sdkClient(deployment.a, 'JSONRPC');
    const stream = new StreamReader(onA.sendMessageStream(sendRequest('long etl 12')));
    const { taskId } = payloadRef(await stream.expectNext());
    await pushTo(receiver, onA, taskId, '/cut');
    await stream.expectNext();
    const closing = deployment.a.close();
    await stream.rest().catch(() => undefined);
    await closing;
    expect(await deliveredOnce(receiver, '/cut')).toEqual([`TASK_STATE_COMPLETED: ${longWords('etl', 12).done}`]);
  });
});

describe.concurrent('a push config made on B while A streams the turn', () => {
  it("is delivered once when A's stream ends; one deleted on B is not", async ({ expect, onTestFinished }) => {
    const { deployment, receiver } = await ownSetup(onTestFinished);
    const [onA, onB] = [await sdkClient(deployment.a, 'HTTP+JSON'), await sdkClient(deployment.b, 'GRPC')];
    const kept = new StreamReader(onA.sendMessageStream(sendRequest('long kept 8')));
    const dropped = new StreamReader(onA.sendMessageStream(sendRequest('long dropped 8')));
    const [keptTask, droppedTask] = [payloadRef(await kept.expectNext()).taskId, payloadRef(await dropped.expectNext()).taskId];
    await pushTo(receiver, onB, keptTask, '/kept');
    await pushTo(receiver, onB, droppedTask, '/dropped');
    await onB.deleteTaskPushNotificationConfig({ tenant: '', taskId: droppedTask, id: 'hook-dropped' });
    await Promise.all([kept.rest(), dropped.rest()]);
    expect(await deliveredOnce(receiver, '/kept')).toEqual([`TASK_STATE_COMPLETED: ${longWords('kept', 8).done}`]);
    expect(receiver.at('/dropped')).toEqual([]);
  });
});
