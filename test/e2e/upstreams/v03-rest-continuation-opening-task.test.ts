/**
 * The official a2a-js 1.x client → the gateway → a REAL a2a-js 1.x agent served as A2A 0.3 over HTTP+JSON only
 * (`legacyCompat`), which asks a question (INPUT_REQUIRED) and, answered in the same task, opens the answer's stream
 * with the task as it stands (still INPUT_REQUIRED: a2a-js 1.x refuses a stream that does not open with a Task or Message, so its executors publish the Task first on every turn), then works,
 * writes an artifact and completes. Spoken to directly, the agent streams all of it; through the gateway the
 * stream ended at that opening Task, as if the turn had ended there: the client never saw the answer, and the
 * gateway's record of the task the agent completed read INPUT_REQUIRED still (so did the background read of a
 * `returnImmediately` answer, which the gateway streams).
 */
import { TaskState } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { regionPlanner } from '../../support/region-planner.js';
import { collect } from '../../support/collect.js';
import { artifactText, asTask, listRequest, outline, sendRequest, streamedArtifactText, textOf, type Payload } from '../../support/sdk-v1-client.js';
import type { RunningTestAgent } from '../../support/sdk-v1-agent-kit.js';
import { serveLegacyCompatAgent } from './legacy-compat-agent.js';
import { connectClient } from './sdk1-client.js';

const asksThenAnswers = regionPlanner({ reopensTask: true });

const payloads = async (stream: AsyncIterable<{ payload?: Payload }>): Promise<Payload[]> =>
  (await collect(stream)).flatMap((event) => (event.payload ? [event.payload] : []));

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a 0.3 HTTP+JSON agent answered in the same task, to a 1.x client over %s', (binding) => {
  let agent: RunningTestAgent;
  let gateway: TestGateway;
  let client: Client;

  beforeAll(async () => {
    agent = await serveLegacyCompatAgent({
      name: 'v03-rest-asks',
      description: 'Asks for a region, then plans in it.',
      interfaces: [{ binding: 'HTTP+JSON', version: '0.3' }],
      executor: asksThenAnswers,
    });
    gateway = await startTestGateway({ upstream: { url: agent.url } });
    client = await connectClient(gateway.url, binding);
  });
  afterAll(async () => {
    await gateway?.close();
    await agent?.close();
  });

  it("streams the answer past the stream's opening Task, which still reads INPUT_REQUIRED, and records the task completed", async () => {
    const asked = await payloads(client.sendMessageStream(sendRequest('plan a VPC')));
    expect(asked.map(outline)).toEqual(['task', `statusUpdate:${TaskState.TASK_STATE_INPUT_REQUIRED}`]);
    const opening = asked[0]!;
    const ids = opening.$case === 'task' ? { taskId: opening.value.id, contextId: opening.value.contextId } : { taskId: '', contextId: '' };

    const answered = await payloads(client.sendMessageStream(sendRequest('eu-west', ids)));
    expect(answered.map(outline)).toEqual([
      'task',
      `statusUpdate:${TaskState.TASK_STATE_WORKING}`,
      'artifactUpdate',
      `statusUpdate:${TaskState.TASK_STATE_COMPLETED}`,
    ]);
    expect(streamedArtifactText(answered)).toBe('A VPC in eu-west');

    const task = await client.getTask({ tenant: '', id: ids.taskId, historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task.status?.message)).toBe('All done.');
    expect(artifactText(task)).toBe('A VPC in eu-west');
  });

  it('answered with returnImmediately, reads the turn on to its end: the task is listed completed', async () => {
    const asked = asTask(await client.sendMessage(sendRequest('plan a VPC')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const ids = { taskId: asked.id, contextId: asked.contextId };
    const configuration = { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined };
    await client.sendMessage({ ...sendRequest('eu-north', ids), configuration });
    // ListTasks is the gateway's own record (a 0.3 HTTP+JSON agent has no such route): what its read of the turn kept.
    const listedState = async () =>
      (await client.listTasks(listRequest({ contextId: ids.contextId }))).tasks.find((t) => t.id === ids.taskId)?.status?.state;
    await expect.poll(listedState, { timeout: 3000 }).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
