/**
 * Push notifications owned by the gateway, end to end: a 1.0 caller and a 0.2.5 caller (the official
 * a2a-js 0.2.5 client) each register a callback through the real gateway, run a turn, and a local
 * receiver gets the payload in the version the config was created through, with its headers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2AClient } from 'a2a-sdk-025/client';
import { TaskState } from 'a2a-sdk-1';
import { TaskNotFoundError } from 'a2a-sdk-1/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stableEventId } from '../../../src/push/event-id.js';
import { Receiver } from './harness.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { artifactText, asTask, connect, sendRequest } from '../../support/sdk-v1-client.js';
import { userMessage } from '../../support/v1-message.js';

let gateway: TestGateway;
let receiver: Receiver;
let dir: string;

async function rpc(method: string, params: unknown): Promise<{ result?: any; error?: any }> {
  const response = await fetch(`${gateway.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as { result?: any; error?: any };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-bridge-push-e2e-'));
  receiver = await new Receiver().up();
  gateway = await startDemoGateway({
    'push-notifications': true,
    'push-allow-private': true,
    'persistence-dir': dir,
  });
});

afterAll(async () => {
  await gateway?.close();
  await receiver?.down();
  await rm(dir, { recursive: true, force: true });
});

// Each test's tasks are its own, pushed to a path of its own: side by side, their turns overlap.
describe.concurrent('push notifications through the gateway', () => {
  it('advertises pushNotifications on both cards', async () => {
    const card1 = (await (await fetch(`${gateway.url}/.well-known/agent-card.json`)).json()) as any;
    const card025 = (await (await fetch(`${gateway.url}/.well-known/agent.json`)).json()) as any;
    expect(card1.capabilities.pushNotifications).toBe(true);
    expect(card025.capabilities.pushNotifications).toBe(true);
  });

  it('a 1.0 caller: CreateTaskPushNotificationConfig, then a turn delivers the 1.0 StreamResponse', async () => {
    const first = await rpc('SendMessage', { message: userMessage('first turn') });
    const task = first.result.task;
    const created = await rpc('CreateTaskPushNotificationConfig', {
      taskId: task.id,
      id: 'hook-1',
      url: `${receiver.url}/v1`,
      token: 'notify-token-1',
      authentication: { scheme: 'bearer', credentials: 'cb-secret-1' },
    });
    expect(created.error).toBeUndefined();
    expect(created.result).toMatchObject({ id: 'hook-1', taskId: task.id, url: `${receiver.url}/v1` });
    expect(JSON.stringify(created.result)).not.toContain('cb-secret-1');

    await rpc('SendMessage', { message: userMessage('second turn', { taskId: task.id, contextId: task.contextId }) });
    const [delivery] = await receiver.waitFor('/v1', 1);
    expect(delivery!.headers['content-type']).toContain('application/a2a+json');
    expect(delivery!.headers['x-a2a-notification-token']).toBe('notify-token-1');
    expect(delivery!.headers['a2a-notification-token']).toBe('notify-token-1');
    expect(delivery!.headers.authorization).toBe('Bearer cb-secret-1');
    const body = delivery!.json as any;
    expect(delivery!.headers['a2a-event-id']).toBe(stableEventId(task.id, body));
    const update = body.statusUpdate ?? body.task;
    expect(update.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(body.statusUpdate?.taskId ?? body.task?.id).toBe(task.id);
  });

  it('a 0.2.5 caller with the official client: set config, follow-up turn delivers the full 0.2.5 Task', async () => {
    const client = new A2AClient(gateway.url);
    const first = (await client.sendMessage({
      message: { kind: 'message', messageId: 'b-1', role: 'user', parts: [{ kind: 'text', text: 'hello from bailian' }] },
    })) as any;
    expect(first.error).toBeUndefined();
    const task = first.result;
    expect(task.kind).toBe('task');

    const set = (await client.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: { id: 'hook-025', url: `${receiver.url}/v025`, token: 'notify-025' },
    })) as any;
    expect(set.error).toBeUndefined();
    expect(set.result.taskId).toBe(task.id);

    const second = (await client.sendMessage({
      message: {
        kind: 'message',
        messageId: 'b-2',
        role: 'user',
        contextId: task.contextId,
        parts: [{ kind: 'text', text: 'and again' }],
      },
    })) as any;
    expect(second.error).toBeUndefined();
    expect(second.result.id).toBe(task.id);

    const [delivery] = await receiver.waitFor('/v025', 1);
    expect(delivery!.headers['content-type']).toContain('application/json');
    expect(delivery!.headers['x-a2a-notification-token']).toBe('notify-025');
    const body = delivery!.json as any;
    expect(body.kind).toBe('task');
    expect(body.id).toBe(task.id);
    expect(body.contextId).toBe(task.contextId);
    expect(body.status.state).toBe('completed');
  });

  it('a 1.0 caller with the official client: returnImmediately with an inline config is told when the turn ends', async () => {
    const { client } = await connect(gateway.url, 'JSONRPC');
    const answer = await client.sendMessage({
      ...sendRequest('slow: plan a network'),
      configuration: {
        acceptedOutputModes: [],
        historyLength: undefined,
        returnImmediately: true,
        taskPushNotificationConfig: {
          tenant: '',
          id: 'hook-later',
          taskId: '',
          url: `${receiver.url}/v1-later`,
          token: 'tok-later',
          authentication: undefined,
        },
      },
    });
    const running = asTask(answer);
    expect(running.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);

    const [delivery] = await receiver.waitFor('/v1-later', 1);
    expect(delivery!.headers['x-a2a-notification-token']).toBe('tok-later');
    const body = delivery!.json as any;
    expect(body.statusUpdate?.taskId ?? body.task?.id).toBe(running.id);
    expect((body.statusUpdate ?? body.task).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // What the caller reads once told: the agent's whole reply.
    const done = await client.getTask({ tenant: '', id: running.id, historyLength: undefined });
    expect(done.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(artifactText(done)).toContain('plan a network');
  });

  it('a 0.2.5 caller with the official client: blocking false with a pushNotificationConfig gets the finished 0.2.5 Task', async () => {
    const client = new A2AClient(gateway.url);
    const sent = (await client.sendMessage({
      message: { kind: 'message', messageId: 'b-later', role: 'user', parts: [{ kind: 'text', text: 'slow: a bucket for logs' }] },
      configuration: {
        acceptedOutputModes: ['text/plain'],
        blocking: false,
        pushNotificationConfig: { url: `${receiver.url}/v025-later`, token: 'tok-025' },
      },
    })) as any;
    expect(sent.error).toBeUndefined();
    // Answered at once, as it asked: the task as it stands, not a turn that broke off.
    expect(sent.result.status.state).toBe('submitted');

    const [delivery] = await receiver.waitFor('/v025-later', 1);
    const body = delivery!.json as any;
    expect(body).toMatchObject({ kind: 'task', id: sent.result.id, status: { state: 'completed' } });
    const got = (await client.getTask({ id: sent.result.id })) as any;
    const text = (task: any) => task.artifacts.flatMap((artifact: any) => artifact.parts.map((part: any) => part.text ?? '')).join('');
    expect(text(body)).toContain('a bucket for logs');
    expect(text(body)).toBe(text(got.result));
  });

  it('a config the task does not have: the official clients read TaskNotFound naming the config, not the task', async () => {
    const taskId = (await rpc('SendMessage', { message: userMessage('a task without that hook') })).result.task.id;
    for (const transport of ['JSONRPC', 'HTTP+JSON'] as const) {
      const { client } = await connect(gateway.url, transport);
      const missing = (await client
        .getTaskPushNotificationConfig({ tenant: '', taskId, id: 'no-such-hook' })
        .catch((error: unknown) => error)) as Error;
      expect(missing, transport).toBeInstanceOf(TaskNotFoundError);
      expect(missing.message, transport).toBe('Push notification config no-such-hook not found');
    }
    // A facade caller is a principal of its own: its own task.
    const legacy = new A2AClient(gateway.url);
    const sent = (await legacy.sendMessage({
      message: { kind: 'message', messageId: 'b-hookless', role: 'user', parts: [{ kind: 'text', text: 'a task without that hook' }] },
    })) as any;
    const answer = (await legacy.getTaskPushNotificationConfig({ id: sent.result.id, pushNotificationConfigId: 'no-such-hook' } as any)) as any;
    expect(answer.error).toEqual({ code: -32001, message: 'Push notification config no-such-hook not found' });
  });

  it('rejects a callback on a private address when push-allow-private is off', async () => {
    const strict = await startDemoGateway({ 'push-notifications': true, 'persistence-dir': dir });
    try {
      const response = await fetch(`${strict.url}/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'SendMessage',
          params: {
            message: userMessage('hi'),
            configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
          },
        }),
      });
      const body = (await response.json()) as any;
      expect(body.error.code).toBe(-32602);
      expect(body.error.message).toContain('private or local');
    } finally {
      await strict.close();
    }
  });
});
