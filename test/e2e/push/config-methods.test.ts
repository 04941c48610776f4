import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../src/model/index.js';
import { MASK } from '../../../src/push/secrets.js';
import { ctx, environmentSuite, Receiver, startHarness, streamTurn, userText, type Harness } from './harness.js';
import { rejection } from '../../support/rejection.js';

const { env, open } = environmentSuite();

async function setup(overrides: Record<string, unknown> = {}): Promise<Harness> {
  const h = await startHarness(env(), overrides, { subdir: `s-${Math.random().toString(36).slice(2)}` });
  open.push(h);
  return h;
}

const ALICE = ctx('basic:alice');
const BOB = ctx('basic:bob');
const HOOK = 'https://hooks.example.com/a2a';

describe('push config methods served by the gateway', () => {
  it('creates, reads masked, lists with paging and deletes; the upstream is never asked', async () => {
    const h = await setup();
    const { taskId } = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE);
    const secret = { token: 'tok', authentication: { scheme: 'bearer', credentials: 'cred' } };

    const created = await h.port.createTaskPushNotificationConfig({ taskId, url: HOOK, ...secret }, ALICE);
    // The id defaults to the task id; secrets are masked and the payload version is never shown.
    expect(created).toEqual({ taskId, id: taskId, url: HOOK, token: MASK, authentication: { scheme: 'bearer', credentials: MASK } });
    // Task ids are UUIDs (0-9a-f), so they sort before these ids.
    await h.port.createTaskPushNotificationConfig({ taskId, id: 'y-hook', url: `${HOOK}/y` }, ALICE);
    await h.port.createTaskPushNotificationConfig({ taskId, id: 'x-hook', url: `${HOOK}/x` }, ALICE);

    expect(await h.port.getTaskPushNotificationConfig({ taskId, id: taskId }, ALICE)).toEqual(created);
    const page1 = await h.port.listTaskPushNotificationConfigs({ taskId, pageSize: 2 }, ALICE);
    expect(page1.configs.map((config) => config.id)).toEqual([taskId, 'x-hook']);
    expect(page1.configs[0]).toEqual(created);
    expect(page1.nextPageToken).toBe(Buffer.from('y-hook').toString('base64url'));
    const page2 = await h.port.listTaskPushNotificationConfigs({ taskId, pageSize: 2, pageToken: page1.nextPageToken }, ALICE);
    expect(page2).toEqual({ configs: [{ taskId, id: 'y-hook', url: `${HOOK}/y` }] });
    expect((await rejection(h.port.listTaskPushNotificationConfigs({ taskId, pageToken: 'bad!' }, ALICE))).code).toBe(-32602);

    await h.port.deleteTaskPushNotificationConfig({ taskId, id: 'x-hook' }, ALICE);
    const missing = await rejection(h.port.getTaskPushNotificationConfig({ taskId, id: 'x-hook' }, ALICE));
    // The task is there: the answer names the config that is not, under A2A's TaskNotFoundError (a2a-js 1.x does so).
    expect([missing.code, missing.message, missing.metadata]).toEqual([
      -32001,
      'Push notification config x-hook not found',
      { taskId, configId: 'x-hook' },
    ]);
    // Deleting again is not an error.
    await h.port.deleteTaskPushNotificationConfig({ taskId, id: 'x-hook' }, ALICE);
    expect((await h.port.listTaskPushNotificationConfigs({ taskId }, ALICE)).configs.map((config) => config.id)).toEqual([taskId, 'y-hook']);
  });

  it('reveals secrets with push-reveal-secrets', async () => {
    const h = await setup({ 'push-reveal-secrets': true });
    const { taskId } = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE);
    await h.port.createTaskPushNotificationConfig({ taskId, id: 'w', url: HOOK, token: 'tok' }, ALICE);
    expect(await h.port.getTaskPushNotificationConfig({ taskId, id: 'w' }, ALICE)).toEqual({ taskId, id: 'w', url: HOOK, token: 'tok' });
  });

  it("answers -32001 for an unknown task and for another principal's task, on all four methods", async () => {
    const h = await setup();
    const { taskId } = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE);
    await h.port.createTaskPushNotificationConfig({ taskId, id: 'w', url: HOOK }, ALICE);
    for (const [id, caller] of [
      [taskId, BOB],
      ['no-such-task', ALICE],
    ] as const) {
      const errors = await Promise.all([
        rejection(h.port.createTaskPushNotificationConfig({ taskId: id, url: HOOK }, caller)),
        rejection(h.port.getTaskPushNotificationConfig({ taskId: id, id: 'w' }, caller)),
        rejection(h.port.listTaskPushNotificationConfigs({ taskId: id }, caller)),
        rejection(h.port.deleteTaskPushNotificationConfig({ taskId: id, id: 'w' }, caller)),
      ]);
      expect(errors.map((error) => [error.code, error.message])).toEqual(Array(4).fill([-32001, 'Task not found']));
    }
    // Bob's failed delete left Alice's config alone.
    expect(await h.port.getTaskPushNotificationConfig({ taskId, id: 'w' }, ALICE)).toMatchObject({ id: 'w' });
  });

  it("rejects bad callback URLs with iac-code's messages, inline ones before the upstream is called", async () => {
    const h = await setup({ 'push-allow-private': false });
    const { taskId } = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE);
    const scheme = await rejection(h.port.createTaskPushNotificationConfig({ taskId, url: 'ftp://hooks.example.com/' }, ALICE));
    expect([scheme.code, scheme.message]).toEqual([-32602, 'A2A push callback URL must be http or https']);
    const loopback = await rejection(h.port.createTaskPushNotificationConfig({ taskId, url: 'http://127.0.0.1/' }, ALICE));
    expect([loopback.code, loopback.message]).toEqual([-32602, 'A2A push callback URL must not target private or local hosts']);

    const calls = h.forwarded.length;
    const inline = await rejection(
      h.port.sendMessage({ message: userText('hi'), configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1/' } } }, ALICE),
    );
    expect([inline.code, inline.message]).toEqual([-32602, 'A2A push callback URL must not target private or local hosts']);
    const streamed = h.port.sendStreamingMessage(
      { message: userText('hi'), configuration: { taskPushNotificationConfig: { url: 'http://localhost:9/' } } },
      ALICE,
    );
    expect((await rejection(streamed[Symbol.asyncIterator]().next())).code).toBe(-32602);
    expect(h.forwarded).toHaveLength(calls);
  });

  it('with push-notifications false: -32003 on the four methods, and inline configs are dropped, not forwarded', async () => {
    const h = await setup({ 'push-notifications': false });
    const receiver = await new Receiver().up();
    open.push({ close: () => receiver.down() });
    const { taskId } = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE);
    const errors = await Promise.all([
      rejection(h.port.createTaskPushNotificationConfig({ taskId, url: HOOK }, ALICE)),
      rejection(h.port.getTaskPushNotificationConfig({ taskId, id: 'w' }, ALICE)),
      rejection(h.port.listTaskPushNotificationConfigs({ taskId }, ALICE)),
      rejection(h.port.deleteTaskPushNotificationConfig({ taskId, id: 'w' }, ALICE)),
    ]);
    expect(errors.map((error) => error.code)).toEqual([-32003, -32003, -32003, -32003]);

    const inline = { taskPushNotificationConfig: { url: `${receiver.url}/x` } };
    const answer = await h.port.sendMessage({ message: userText('blocking'), configuration: inline }, ALICE);
    expect(answer).toMatchObject({ task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    const events: StreamResponse[] = [];
    for await (const event of h.port.sendStreamingMessage({ message: userText('stream'), configuration: inline }, ALICE)) events.push(event);
    expect(events.length).toBeGreaterThan(3);
    for (const request of h.forwarded) expect(request.configuration?.taskPushNotificationConfig).toBeUndefined();
    expect(receiver.received).toHaveLength(0);
  });

  it('keeps the rest of the decorated port working (events hub and settled stay reachable)', async () => {
    const h = await setup();
    const decorated = h.port as typeof h.gateway;
    expect(decorated.events).toBe(h.gateway.events);
    const { taskId } = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE);
    await decorated.settled(taskId);
    expect((await h.port.getTask({ id: taskId }, ALICE)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await h.port.listTasks({}, ALICE)).tasks.map((task) => task.id)).toContain(taskId);
  });
});
