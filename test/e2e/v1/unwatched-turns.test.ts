/**
 * Turns the gateway stopped watching end at the agent unseen: one answered with `returnImmediately`, one whose
 * caller left mid-stream. ListTasks, answered from the gateway's registry, must still show how they ended
 * (the agent is asked about tasks last seen running), and a filter on a finished state must find them. The
 * official a2a-js 1.x client against a real a2a-js 1.x agent, over JSON-RPC and HTTP+JSON.
 */
import { TaskState } from 'a2a-sdk-1';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { artifactText, asTask, connect, listRequest, payloadRef, sendRequest, StreamReader, TRANSPORTS } from '../../support/sdk-v1-client.js';
import { sdkReply } from '../../support/sdk-v1-agent.js';

const CHUNK_MS = 30;

// Each test follows a turn of its own, in a conversation of its own, to its end: side by side, they wait once.
describe.concurrent.each(TRANSPORTS)('ListTasks over %s after turns nobody watched to their end', (transport) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startSdkGateway({}, { slowChunkDelayMs: CHUNK_MS });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('shows a turn answered at once as the agent finished it, and the COMPLETED filter finds it', async ({ expect }) => {
    const { client } = await connect(gateway.url, transport);
    const accepted = asTask(
      await client.sendMessage({
        ...sendRequest('slow: report'),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true },
      }),
    );
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(accepted.status?.state);
    // Asked while it still runs (a slow host), a task is asked again a little later: the list shows it once it ended.
    const listed = async () => (await client.listTasks(listRequest({ contextId: accepted.contextId, includeArtifacts: true }))).tasks;
    await expect
      .poll(async () => (await listed()).map((task) => [task.id, task.status?.state]), { timeout: 8_000, interval: 250 })
      .toEqual([[accepted.id, TaskState.TASK_STATE_COMPLETED]]);
    expect(artifactText((await listed())[0]!)).toBe(sdkReply('slow: report', 1).full);
    const completed = await client.listTasks(listRequest({ contextId: accepted.contextId, status: TaskState.TASK_STATE_COMPLETED }));
    expect(completed.tasks.map((task) => task.id)).toEqual([accepted.id]);
  });

  it('the same for a stream its caller left early, asked by the state filter alone', async ({ expect }) => {
    const { client } = await connect(gateway.url, transport);
    const reader = new StreamReader(client.sendMessageStream(sendRequest('slow: left early')));
    const ids = payloadRef(await reader.expectNext());
    await reader.expectNext();
    await reader.close();
    const completedIds = async () =>
      (await client.listTasks(listRequest({ contextId: ids.contextId, status: TaskState.TASK_STATE_COMPLETED }))).tasks.map((task) => task.id);
    await expect.poll(completedIds, { timeout: 8_000, interval: 250 }).toEqual([ids.taskId]);
  });
});
