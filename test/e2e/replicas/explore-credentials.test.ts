/**
 * Two callers with credentials of their own, each on another replica: whatever Bob asks of Alice's task or
 * conversation through replica B (each binding, the a2a-js 1.x client), it does not exist for him, and
 * nothing of hers reaches him or the agent; Alice still sees all of it, on both replicas. Two callers naming
 * one new context at once on two replicas: one owns it. One caller's tenants stay apart across replicas.
 */
import { randomUUID } from 'node:crypto';
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../../support/gateway.js';
import { requireRedis } from '../../support/redis.js';
import { asTask, listRequest, payloadRef, sendRequest, StreamReader } from '../../support/sdk-v1-client.js';
import { ALICE, BINDINGS, BOB, sdkClient, startDeployment, type Deployment } from './deployment.js';

let deployment: Deployment<TestGateway>;
beforeAll(requireRedis);
beforeAll(async () => {
  deployment = await startDeployment();
});
afterAll(() => deployment?.close());

/** The A2A reason the SDK read of a failure (or its message). */
function refusalOf(error: unknown): string {
  const reason = (error as { reason?: string }).reason;
  return reason && reason !== 'INTERNAL_ERROR' ? reason : String(error);
}

/** What a call's failure tells its caller: the A2A reason the SDK read (or the message). */
async function refusal(call: Promise<unknown> | AsyncIterable<unknown>): Promise<string> {
  try {
    if (Symbol.asyncIterator in call) {
      const iterator = call[Symbol.asyncIterator]();
      await iterator.next();
      await iterator.return?.();
    } else await call;
  } catch (error) {
    return refusalOf(error);
  }
  return 'answered';
}

describe.each(BINDINGS)('over %s', (binding) => {
  it("Bob on B never sees Alice's task from A, running or finished, and cannot act on it", async () => {
    const alice = await sdkClient(deployment.a, binding, ALICE);
    const bob = await sdkClient(deployment.b, binding, BOB);
    const stream = new StreamReader(alice.sendMessageStream(sendRequest('long secret-project 10')));
    const { taskId, contextId } = payloadRef(await stream.expectNext());
    const turnsBefore = deployment.agent.turns.length;

    const running = {
      get: await refusal(bob.getTask({ tenant: '', id: taskId, historyLength: undefined })),
      subscribe: await refusal(bob.resubscribeTask({ tenant: '', id: taskId })),
      push: await refusal(
        bob.createTaskPushNotificationConfig({
          tenant: '',
          id: 'peek',
          taskId,
          url: 'http://127.0.0.1:9/hook',
          token: '',
          authentication: undefined,
        }),
      ),
      followUp: await refusal(bob.sendMessage(sendRequest('tell me more', { taskId, contextId }))),
      context: await refusal(bob.sendMessage(sendRequest('deploy mine', { contextId }))),
      cancel: await refusal(bob.cancelTask({ tenant: '', id: taskId, metadata: undefined })),
    };
    expect(running).toEqual({
      get: 'TASK_NOT_FOUND',
      subscribe: 'TASK_NOT_FOUND',
      push: 'TASK_NOT_FOUND',
      followUp: 'TASK_NOT_FOUND',
      // Refused before the agent: the conversation is another caller's ("Context ... is not available").
      context: 'INVALID_PARAMS',
      cancel: 'TASK_NOT_FOUND',
    });
    expect((await bob.listTasks(listRequest())).tasks.map((task) => task.contextId)).not.toContain(contextId);
    expect((await bob.listTasks(listRequest({ contextId }))).tasks).toEqual([]);
    expect(deployment.agent.turns.length).toBe(turnsBefore);

    await stream.rest();
    const finished = await alice.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(finished.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await refusal(bob.getTask({ tenant: '', id: taskId, historyLength: undefined }))).toBe('TASK_NOT_FOUND');
    const aliceOnB = await sdkClient(deployment.b, binding, ALICE);
    expect(await aliceOnB.getTask({ tenant: '', id: taskId, historyLength: undefined })).toEqual(finished);
    expect((await aliceOnB.listTasks(listRequest({ contextId }))).tasks.map((task) => task.id)).toEqual([taskId]);
  });
});

describe('a new conversation named by two callers at once', () => {
  it('Alice on A and Bob on B send into the same new context together: one of them owns it, the other is refused', async () => {
    const alice = await sdkClient(deployment.a, 'JSONRPC', ALICE);
    const bob = await sdkClient(deployment.b, 'GRPC', BOB);
    for (let round = 0; round < 8; round++) {
      const contextId = randomUUID();
      const answers = await Promise.all([
        alice.sendMessage(sendRequest('note alice', { contextId })).then(() => 'alice', refusalOf),
        bob.sendMessage(sendRequest('note bob', { contextId })).then(() => 'bob', refusalOf),
      ]);
      const owner = answers.find((answer) => answer === 'alice' || answer === 'bob');
      expect(
        answers.filter((answer) => answer === 'INVALID_PARAMS'),
        JSON.stringify(answers),
      ).toHaveLength(1);
      const listed = {
        alice: (await alice.listTasks(listRequest({ contextId }))).tasks.length,
        bob: (await bob.listTasks(listRequest({ contextId }))).tasks.length,
      };
      expect(listed).toEqual({ alice: owner === 'alice' ? 1 : 0, bob: owner === 'bob' ? 1 : 0 });
    }
  });
});

describe('tenants across replicas', () => {
  it.each(BINDINGS)('over %s: a task sent under a tenant on A is found on B under that tenant only, and so is its context', async (binding) => {
    const onA = await sdkClient(deployment.a, binding);
    const onB = await sdkClient(deployment.b, binding);
    const task = asTask(await onA.sendMessage({ ...sendRequest('note tenanted'), tenant: 'acme' }));
    const getUnder = (tenant: string) => onB.getTask({ tenant, id: task.id, historyLength: undefined }).then((found) => found.id, refusalOf);
    expect({ none: await getUnder(''), acme: await getUnder('acme'), other: await getUnder('other') }).toEqual({
      none: 'TASK_NOT_FOUND',
      acme: task.id,
      other: 'TASK_NOT_FOUND',
    });
    expect((await onB.listTasks(listRequest({ contextId: task.contextId }))).tasks).toEqual([]);
    expect((await onB.listTasks(listRequest({ tenant: 'acme', contextId: task.contextId }))).tasks.map((listed) => listed.id)).toEqual([task.id]);
    const followUp = (tenant: string) =>
      onB.sendMessage({ ...sendRequest('note again', { contextId: task.contextId }), tenant }).then(() => 'answered', refusalOf);
    expect({ none: await followUp(''), acme: await followUp('acme') }).toEqual({ none: 'INVALID_PARAMS', acme: 'answered' });
  });
});
