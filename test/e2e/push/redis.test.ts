import { describe, expect, it } from 'vitest';
import { ctx, flush, startHarness, streamTurn, userText, type Harness, type Receiver } from './harness.js';
import { replicaSuite } from './replicas.js';

const suite = replicaSuite('e2e');
const { replicas } = suite;

/** Redis-backed queue and config store, with stream, group and key names of their own. */
async function setup(overrides: Record<string, unknown> = {}): Promise<{ h: Harness; receiver: Receiver }> {
  const h = await startHarness(suite.env(), replicas.settings(overrides), { redis: suite.redis(), subdir: `r-${replicas.counter}` });
  replicas.closeAfter(h);
  return { h, receiver: await replicas.receiver() };
}

const ALICE_V1 = ctx('basic:alice', 'jsonrpc');
const ALICE_V025 = ctx('basic:alice', 'v025');

describe('push delivery, redis-streams queue and Redis config store', () => {
  it('delivers the 1.0 INPUT_REQUIRED update once and the full 0.2.5 Task, with their headers', async () => {
    const { h, receiver } = await setup();
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V1);
    await h.port.createTaskPushNotificationConfig(
      { taskId: first.taskId, id: 'v1', url: `${receiver.url}/v1`, token: 'tok', authentication: { scheme: 'bearer', credentials: 'c' } },
      ALICE_V1,
    );
    await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, id: 'v025', url: `${receiver.url}/v025`, token: 'tok' }, ALICE_V025);
    // The configs are in Redis, secrets sealed.
    const raw = await suite.redis().hvals(`${replicas.run}:${replicas.counter}:push:configs:${first.taskId}`);
    expect(raw).toHaveLength(2);
    expect(raw.join('')).not.toContain('"tok"');

    await streamTurn(h.port, { message: userText('next', { taskId: first.taskId }) }, ALICE_V1);
    // Each config's push, however the queue's consumers order them; then the sentinel shows no second one came.
    await receiver.waitFor('/v1', 1);
    await receiver.waitFor('/v025', 1);
    await flush(h, receiver);
    const [v1] = receiver.at('/v1');
    const [v025] = receiver.at('/v025');
    expect(receiver.at('/v1')).toHaveLength(1);
    expect(receiver.at('/v025')).toHaveLength(1);

    expect(v1!.json).toMatchObject({ task: { id: first.taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    expect(v1!.headers).toMatchObject({
      'content-type': 'application/a2a+json',
      'x-a2a-notification-token': 'tok',
      'a2a-notification-token': 'tok',
      authorization: 'Bearer c',
    });
    expect(v025!.json).toMatchObject({ kind: 'task', id: first.taskId, status: { state: 'input-required' } });
    expect(v025!.headers['content-type']).toBe('application/json');
    // One event, one id, whichever config it went to.
    expect(v025!.headers['a2a-event-id']).toBe(v1!.headers['a2a-event-id']);
  });

  it('push-events: all and an inline config', async () => {
    const { h, receiver } = await setup({ 'push-events': 'all' });
    const turn = await streamTurn(
      h.port,
      { message: userText('inline'), configuration: { taskPushNotificationConfig: { url: `${receiver.url}/all` } } },
      ALICE_V1,
    );
    const taskEvents = turn.events.filter((event) => !('message' in event));
    await receiver.waitFor('/all', taskEvents.length);
    await flush(h, receiver);
    expect(receiver.at('/all').map((entry) => entry.json)).toEqual(taskEvents);
    expect(h.forwarded.every((request) => request.configuration?.taskPushNotificationConfig === undefined)).toBe(true);
  });

  it('a returnImmediately turn is followed: its finished 0.2.5 Task goes through the Redis stream', async () => {
    const { h, receiver } = await setup();
    const answer = await h.port.sendMessage(
      {
        message: userText('slow: a bucket'),
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.url}/later` } },
      },
      ALICE_V025,
    );
    const taskId = 'task' in answer ? answer.task.id : '';
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_SUBMITTED');
    const [delivery] = await receiver.waitFor('/later', 1);
    const body = delivery!.json as { kind: string; id: string; status: { state: string }; artifacts: Array<{ parts: Array<{ text?: string }> }> };
    expect(body).toMatchObject({ kind: 'task', id: taskId, status: { state: 'input-required' } });
    const upstream = await suite.env().upstream.getTask({ id: taskId }, ALICE_V025);
    const text = (artifacts: Array<{ parts: Array<{ text?: string }> }> = []) =>
      artifacts.flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join('');
    expect(text(body.artifacts)).toBe(text(upstream.artifacts));
    expect(text(body.artifacts)).toContain('a bucket');
  });

  it('keeps queued jobs across a restart while the receiver is down', async () => {
    const { h, receiver } = await setup();
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V025);
    await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, url: `${receiver.url}/later`, token: 'kept' }, ALICE_V025);
    await receiver.down();
    await streamTurn(h.port, { message: userText('while down', { taskId: first.taskId }) }, ALICE_V025);
    await h.restart();
    expect(receiver.received).toHaveLength(0);
    await receiver.up();
    const [delivery] = await receiver.waitFor('/later', 1);
    expect(delivery!.json).toMatchObject({ kind: 'task', id: first.taskId, status: { state: 'input-required' } });
    expect(delivery!.headers['a2a-notification-token']).toBe('kept');
  });
});
