/**
 * Replica A killed (SIGKILL) while it carries three kinds of call of one caller: a blocking SendMessage, a
 * SendMessage with `returnImmediately` (the SDK client's polling mode) and a stream whose message asked for
 * push notifications. The turns go on at the agent; replica B must tell the caller how each ends: GetTask
 * polled on B reaches the end, the push is delivered once, and the conversation of the blocking call goes
 * on there once its turn is over.
 */
import { TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRedis } from '../../support/redis.js';
import { asTask, listRequest, payloadRef, sendRequest, StreamReader } from '../../support/sdk-v1-client.js';
import { Receiver } from '../push/harness.js';
import { longWords } from './deploy-agent.js';
import { sdkClient, startDeploymentWithChild, type ChildReplica, type Deployment } from './deployment.js';
import { historyLines, taskArtifacts } from './seen.js';

const STEPS = 16;
let deployment: Deployment<ChildReplica> | undefined;
let receiver: Receiver | undefined;
beforeAll(requireRedis);
afterAll(async () => {
  await deployment?.close();
  await receiver?.down();
});

const configured = (request: SendMessageRequest, configuration: Partial<NonNullable<SendMessageRequest['configuration']>>): SendMessageRequest => ({
  ...request,
  configuration: {
    acceptedOutputModes: [],
    taskPushNotificationConfig: undefined,
    historyLength: undefined,
    returnImmediately: false,
    ...configuration,
  },
});

/** `taskId:state` of every push delivered to `path`. */
function pushedStates(path: string): string[] {
  return receiver!.at(path).map((delivery) => {
    const body = delivery.json as {
      task?: { id: string; status?: { state?: string } };
      statusUpdate?: { taskId: string; status?: { state?: string } };
    };
    return `${body.task?.id ?? body.statusUpdate?.taskId}:${body.task?.status?.state ?? body.statusUpdate?.status?.state}`;
  });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('replica A killed with calls in flight', () => {
  it('B tells how each of them ends', async () => {
    deployment = await startDeploymentWithChild({ settings: { tasks: { 'lane-lease-ms': 3_000 }, 'push-follow-lease-ms': 2_000 } });
    receiver = await new Receiver().up();
    const [jsonRpcOnA, grpcOnA, restOnA] = [
      await sdkClient(deployment.a, 'JSONRPC'),
      await sdkClient(deployment.a, 'GRPC'),
      await sdkClient(deployment.a, 'HTTP+JSON'),
    ];
    const onB = await sdkClient(deployment.b, 'JSONRPC');

    const blockingContext = `blocking-${Date.now()}`;
    const blocking = jsonRpcOnA.sendMessage(sendRequest(`long blocking ${STEPS}`, { contextId: blockingContext })).then(
      () => 'answered',
      (error: unknown) => String(error),
    );
    const hook = { tenant: '', id: 'hook', taskId: '', url: `${receiver.url}/pushed`, token: 'pushed-token', authentication: undefined };
    const polledHook = { ...hook, url: `${receiver.url}/polled` };
    const polled = asTask(
      await grpcOnA.sendMessage(configured(sendRequest(`long polled ${STEPS}`), { returnImmediately: true, taskPushNotificationConfig: polledHook })),
    );
    const pushedStream = new StreamReader(
      restOnA.sendMessageStream(configured(sendRequest(`long pushed ${STEPS}`), { taskPushNotificationConfig: hook })),
    );
    const pushed = payloadRef(await pushedStream.expectNext());
    await new Promise((resolve) => setTimeout(resolve, 300));
    await deployment.a.stop('SIGKILL');
    void pushedStream.rest().catch(() => undefined);
    expect(await blocking).not.toBe('answered');

    // returnImmediately: B lists it among the completed tasks once the agent finished it, though nobody asked for it.
    const completedOnB = await until(
      () => onB.listTasks(listRequest({ status: TaskState.TASK_STATE_COMPLETED })),
      (listed) => listed.tasks.some((task) => task.id === polled.id),
      8_000,
    );
    expect(completedOnB.tasks.map((task) => task.id)).toContain(polled.id);
    // And polling B reaches the turn's end, with all the agent said.
    const polledEnd = await until(
      () => onB.getTask({ tenant: '', id: polled.id, historyLength: undefined }),
      (task) => task.status?.state === TaskState.TASK_STATE_COMPLETED,
      8_000,
    );
    expect(polledEnd.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(taskArtifacts(polledEnd)).toEqual({ log: [`[text/plain] ${longWords('polled', STEPS).lines.join('')}`] });
    for (const line of longWords('polled', STEPS).progress)
      expect(
        historyLines(polledEnd).filter((seen) => seen.endsWith(line)),
        line,
      ).toHaveLength(1);

    // The stream's push config: its end pushed once, by B.
    await receiver.waitFor('/pushed', 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await receiver.waitFor('/polled', 1, 10_000);
    const states = pushedStates('/pushed');
    expect(states).toEqual([`${pushed.taskId}:TASK_STATE_COMPLETED`]);
    expect(pushedStates('/polled')).toEqual([`${polled.id}:TASK_STATE_COMPLETED`]);

    // The blocking call's conversation: once the agent finished its turn, the next message is taken on B.
    const next = await until(
      () => onB.sendMessage(sendRequest('long next 1', { contextId: blockingContext })).then(asTask, (error: unknown) => String(error)),
      (answer) => typeof answer !== 'string',
      8_000,
    );
    expect(typeof next === 'string' ? next : next.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  }, 60_000); // replica A is a child process: it takes seconds (up to tens on a busy host) to start
});
