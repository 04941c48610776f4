/**
 * `push-max-configs-per-task` holds for inline configs too: a follow-up carrying a config its task has
 * no room for is refused (-32602, HTTP 400) like CreateTaskPushNotificationConfig, before the turn runs,
 * through the official a2a-js 1.x client on both transports, blocking and streamed. A config that
 * replaces one the task has (same id) still goes through.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type SendMessageRequest, type TaskPushNotificationConfig } from 'a2a-sdk-1';
import type { Client } from 'a2a-sdk-1/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from './harness.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { asTask, collect, connect, rejectionOf, sendRequest, textOf, TRANSPORTS, wireCode } from '../../support/sdk-v1-client.js';

const MAX = 2;
let gateway: TestGateway;
let receiver: Receiver;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-push-limit-'));
  receiver = await new Receiver().up();
  gateway = await startDemoGateway({
    'push-notifications': true,
    'push-allow-private': true,
    'push-max-configs-per-task': MAX,
    'persistence-dir': dir,
  });
});

afterAll(async () => {
  await gateway?.close();
  await receiver?.down();
  await rm(dir, { recursive: true, force: true });
});

const hook = (taskId: string, id: string, path = id): TaskPushNotificationConfig => ({
  tenant: '',
  id,
  taskId,
  url: `${receiver.url}/${path}`,
  token: '',
  authentication: undefined,
});

function followUp(text: string, task: { id: string; contextId: string }, config: TaskPushNotificationConfig): SendMessageRequest {
  const request = sendRequest(text, { taskId: task.id, contextId: task.contextId });
  return {
    ...request,
    configuration: { acceptedOutputModes: [], historyLength: undefined, returnImmediately: false, taskPushNotificationConfig: config },
  };
}

/** A task waiting for input whose configs are at the limit. */
async function fullTask(client: Client): Promise<{ id: string; contextId: string }> {
  const task = asTask(await client.sendMessage(sendRequest('make a vpc')));
  expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  for (let i = 0; i < MAX; i += 1) await client.createTaskPushNotificationConfig(hook(task.id, `hook-${i}`));
  return task;
}

const historyTexts = async (client: Client, id: string) =>
  (await client.getTask({ tenant: '', id, historyLength: 100 })).history.map((message) => textOf(message));

describe('inline push configs past push-max-configs-per-task', () => {
  for (const transport of TRANSPORTS) {
    for (const mode of ['send', 'stream'] as const) {
      it(`${transport} ${mode}: refused before the turn runs; replacing an existing config is fine`, async () => {
        const { client } = await connect(gateway.url, transport);
        const task = await fullTask(client);
        const call = (request: SendMessageRequest) => (mode === 'send' ? client.sendMessage(request) : client.sendMessageStream(request));

        const refused = await rejectionOf(call(followUp('one hook too many', task, hook(task.id, 'extra'))));
        expect(refused).toMatchObject({ code: wireCode(transport, -32602), message: `A task can have at most ${MAX} push notification configs` });
        expect(await historyTexts(client, task.id)).not.toContain('one hook too many');
        const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
        expect(listed.configs.map((config) => config.id)).toEqual(['hook-0', 'hook-1']);

        const replacing = followUp('same hook, new url', task, hook(task.id, 'hook-0', `moved-${transport}-${mode}`));
        if (mode === 'send') await client.sendMessage(replacing);
        else await collect(client.sendMessageStream(replacing));
        expect(await historyTexts(client, task.id)).toContain('same hook, new url');
        const moved = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-0' });
        expect(moved.url).toBe(`${receiver.url}/moved-${transport}-${mode}`);
      });
    }
  }
});
