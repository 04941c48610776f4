import { describe, it, type TestContext } from 'vitest';
import type { StreamResponse } from '../../../src/model/index.js';
import type { UnknownTasks } from '../../../src/core/task-scope.js';
import { stableEventId } from '../../../src/push/event-id.js';
import { ctx, environmentSuite, flush, pushedTurnEnd, Receiver, startHarness, streamTurn, userText, type Harness } from './harness.js';
import type { FollowEntry } from '../../../src/push/follow-journal.js';
import { keptFollows } from '../../support/push-state-files.js';
import { waitUntil } from '../../support/wait-until.js';

const { env } = environmentSuite();

/** A harness and a receiver of the test's own, stopped once it finishes (the tests run side by side). */
async function setup(
  { onTestFinished }: TestContext,
  overrides: Record<string, unknown> = {},
  subdir?: string,
  options: { followRetry?: { initialDelayMs: number; maxDelayMs: number }; unknownTasks?: UnknownTasks } = {},
): Promise<{ h: Harness; receiver: Receiver }> {
  const h = await startHarness(env(), overrides, { subdir: subdir ?? `s-${Math.random().toString(36).slice(2)}`, ...options });
  onTestFinished(() => h.close());
  const receiver = await new Receiver().up();
  onTestFinished(() => receiver.down());
  return { h, receiver };
}

const ALICE_V1 = ctx('basic:alice', 'jsonrpc');

/** Alice's turn answered while it runs (`returnImmediately`) with a push config to `url`, once its follow is journaled. */
async function followedTurn(h: Harness, url: string, text: string): Promise<{ taskId: string; followed: () => Promise<FollowEntry[]> }> {
  const answer = await h.port.sendMessage(
    { message: userText(text), configuration: { returnImmediately: true, taskPushNotificationConfig: { url } } },
    ALICE_V1,
  );
  const taskId = 'task' in answer ? answer.task.id : '';
  const followed = () => keptFollows(h.config['persistence-dir']);
  await waitUntil(async () => (await followed()).some((entry) => entry.taskId === taskId));
  return { taskId, followed };
}
const ALICE_V025 = ctx('basic:alice', 'v025');
const tokenHeaders = (entry: { headers: Record<string, unknown> }) => ({
  x: entry.headers['x-a2a-notification-token'],
  plain: entry.headers['a2a-notification-token'],
  auth: entry.headers.authorization,
});

// Each test has its own harness (persistence-dir), receiver and task: side by side, their slow turns overlap.
describe.concurrent('push delivery, local-file queue', () => {
  it('delivers the INPUT_REQUIRED change as the 1.0 Task with the reply, once per turn, with every header', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context);
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V1);
    await h.port.createTaskPushNotificationConfig(
      {
        taskId: first.taskId,
        id: 'hook-1',
        url: `${receiver.url}/v1`,
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'cb-secret' },
      },
      ALICE_V1,
    );
    const second = await streamTurn(h.port, { message: userText('and a subnet', { taskId: first.taskId }) }, ALICE_V1);
    const [delivery] = await receiver.waitFor('/v1', 1);

    const inputRequired = second.events.filter(
      (event): event is Extract<StreamResponse, { statusUpdate: unknown }> =>
        'statusUpdate' in event && event.statusUpdate.status.state === 'TASK_STATE_INPUT_REQUIRED',
    );
    expect(inputRequired).toHaveLength(1);
    // The task as recorded, with the turn's reply: the status update that ends a streamed turn is not all it says.
    expect(delivery!.json).toMatchObject(pushedTurnEnd(inputRequired[0]));
    expect((delivery!.json as { task: { artifacts: unknown[] } }).task.artifacts.at(-1)).toMatchObject({
      parts: [{ text: 'Echo (turn 2): and a subnet' }],
    });
    expect(delivery!.headers['content-type']).toBe('application/a2a+json');
    expect(tokenHeaders(delivery!)).toEqual({ x: 'tok-1', plain: 'tok-1', auth: 'Bearer cb-secret' });
    // The demo stamps its statuses: the id is the one every replica derives for this change.
    expect(delivery!.headers['a2a-event-id']).toBe(stableEventId(first.taskId, inputRequired[0]!));

    // A third turn: exactly one more notification (not one per WORKING chunk), with a new event id.
    await streamTurn(h.port, { message: userText('thanks', { taskId: first.taskId }) }, ALICE_V1);
    await flush(h, receiver);
    const all = receiver.at('/v1');
    expect(all).toHaveLength(2);
    expect(all[1]!.json).toMatchObject({ task: { id: first.taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    expect(all[1]!.headers['a2a-event-id']).not.toBe(all[0]!.headers['a2a-event-id']);
  });

  it('delivers the full 0.2.5 Task to a config registered through the 0.2.5 surface', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context);
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V025);
    await h.port.createTaskPushNotificationConfig(
      { taskId: first.taskId, url: `${receiver.url}/v025`, token: 'tok-2', authentication: { scheme: 'basic', credentials: 'user:pass' } },
      ALICE_V025,
    );
    const second = await streamTurn(h.port, { message: userText('next', { taskId: first.taskId }) }, ALICE_V025);
    const [delivery] = await receiver.waitFor('/v025', 1);
    const body = delivery!.json as Record<string, unknown> & { status: { state: string }; artifacts: unknown[]; history: unknown[] };

    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(tokenHeaders(delivery!)).toEqual({ x: 'tok-2', plain: 'tok-2', auth: `Basic ${Buffer.from('user:pass').toString('base64')}` });
    expect(body).toMatchObject({ kind: 'task', id: first.taskId, status: { state: 'input-required' } });
    // The registry's snapshot after the event: both turns' reply artifacts and the history so far.
    expect(body.artifacts).toHaveLength(2);
    expect(body.artifacts[1]).toMatchObject({ parts: [{ kind: 'text', text: 'Echo (turn 2): next' }] });
    expect(body.history.length).toBeGreaterThan(1);
    // The id of the change the stream relayed, though the body is the registry's Task.
    const end = second.events.find((event) => 'statusUpdate' in event && event.statusUpdate.status.state === 'TASK_STATE_INPUT_REQUIRED');
    expect(delivery!.headers['a2a-event-id']).toBe(stableEventId(first.taskId, end!));
  });

  it('push-events: all delivers every task event of the turn, in order', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context, { 'push-events': 'all' });
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V1);
    await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, url: `${receiver.url}/all` }, ALICE_V1);
    const second = await streamTurn(h.port, { message: userText('go on', { taskId: first.taskId }) }, ALICE_V1);
    const taskEvents = second.events.filter((event) => !('message' in event));
    expect(taskEvents.length).toBeGreaterThan(5);
    const deliveries = await receiver.waitFor('/all', taskEvents.length);
    await flush(h, receiver);
    expect(receiver.at('/all').map((entry) => entry.json)).toEqual(taskEvents);
    expect(new Set(deliveries.map((entry) => entry.headers['a2a-event-id'])).size).toBe(taskEvents.length);
  });

  it('takes an inline config off SendStreamingMessage and SendMessage and delivers to it', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context);
    const streamed = await streamTurn(
      h.port,
      { message: userText('inline stream'), configuration: { taskPushNotificationConfig: { url: `${receiver.url}/inline-stream`, token: 't-s' } } },
      ALICE_V1,
    );
    const [fromStream] = await receiver.waitFor('/inline-stream', 1);
    expect(fromStream!.json).toMatchObject({ task: { id: streamed.taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    expect(fromStream!.headers['x-a2a-notification-token']).toBe('t-s');

    const answer = await h.port.sendMessage(
      { message: userText('inline blocking'), configuration: { taskPushNotificationConfig: { id: 'mine', url: `${receiver.url}/inline-send` } } },
      ALICE_V025,
    );
    const taskId = 'task' in answer ? answer.task.id : '';
    // Stored before the answer came back, under the caller, id as given.
    const listed = await h.port.listTaskPushNotificationConfigs({ taskId }, ALICE_V025);
    expect(listed.configs).toEqual([{ id: 'mine', taskId, url: `${receiver.url}/inline-send` }]);
    const [fromSend] = await receiver.waitFor('/inline-send', 1);
    expect(fromSend!.json).toMatchObject({ kind: 'task', id: taskId, status: { state: 'input-required' } });

    expect(h.forwarded).toHaveLength(2);
    for (const request of h.forwarded) expect(request.configuration?.taskPushNotificationConfig).toBeUndefined();
  });

  it('follows a returnImmediately turn no caller streams: its end is delivered and recorded', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context, {}, undefined, { followRetry: { initialDelayMs: 10, maxDelayMs: 40 } });
    for (const prompt of ['slow: make a vpc', 'make a subnet']) {
      const path = `/later-${prompt.length}`;
      const answer = await h.port.sendMessage(
        { message: userText(prompt), configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.url}${path}` } } },
        ALICE_V1,
      );
      const running = 'task' in answer ? answer.task : undefined;
      expect(running?.status.state).toBe('TASK_STATE_SUBMITTED');
      const [delivery] = await receiver.waitFor(path, 1);
      const body = delivery!.json as {
        statusUpdate?: { taskId: string; status: { state: string } };
        task?: { id: string; status: { state: string } };
      };
      // The update that ended the turn, or the task read when it had ended before the follow subscribed.
      expect(body.statusUpdate?.taskId ?? body.task?.id).toBe(running!.id);
      expect((body.statusUpdate ?? body.task)!.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      // The follow went through the gateway: the registry holds the finished turn with the agent's reply.
      await h.gateway.settled(running!.id);
      const recorded = await h.registry.get(running!.id, ALICE_V1.principal);
      expect(recorded?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const replyText = recorded?.artifacts?.flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join('');
      const upstream = await env().upstream.getTask({ id: running!.id }, ALICE_V1);
      expect(replyText).toBe(upstream.artifacts?.flatMap((artifact) => artifact.parts.map((part) => part.text ?? '')).join(''));
      expect(replyText).not.toBe('');
    }
    await flush(h, receiver);
    expect(receiver.received.filter((entry) => entry.path.startsWith('/later-'))).toHaveLength(2);
  });

  it('a config created after a returnImmediately answer, while the turn runs, is told of its end', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context);
    const answer = await h.port.sendMessage({ message: userText('slow: plan a network'), configuration: { returnImmediately: true } }, ALICE_V1);
    const taskId = 'task' in answer ? answer.task.id : '';
    await h.port.createTaskPushNotificationConfig({ taskId, id: 'late', url: `${receiver.url}/late` }, ALICE_V1);
    expect((await env().upstream.getTask({ id: taskId }, ALICE_V1)).status.state).toBe('TASK_STATE_WORKING');
    const [delivery] = await receiver.waitFor('/late', 1);
    expect(delivery!.json).toMatchObject({ task: { id: taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
  });

  it('a follow cut short by a restart is taken up again from the journal, and delivered once', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context, {}, undefined, { followRetry: { initialDelayMs: 10, maxDelayMs: 40 } });
    const { taskId, followed } = await followedTurn(h, `${receiver.url}/resumed`, 'slow: survive a restart');
    await h.restart();
    expect((await env().upstream.getTask({ id: taskId }, ALICE_V1)).status.state).toBe('TASK_STATE_WORKING');

    const [delivery] = await receiver.waitFor('/resumed', 1);
    expect(delivery!.json).toMatchObject({ task: { id: taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    await waitUntil(async () => (await followed()).length === 0);
    await flush(h, receiver);
    expect(receiver.at('/resumed')).toHaveLength(1);
  });

  it('with credentials configured, a follow is taken up after a restart that emptied the memory registry', async (context) => {
    const { expect } = context;
    // As a gateway with auth.* restarts on store: memory: push configs and follows are on disk, tasks are not.
    const { h, receiver } = await setup(context, {}, undefined, {
      followRetry: { initialDelayMs: 10, maxDelayMs: 40 },
      unknownTasks: 'not-found',
    });
    const { taskId } = await followedTurn(h, `${receiver.url}/forgotten`, 'slow: survive a restart that forgets the task');
    await h.restart(() => h.registry.close());
    expect(await h.registry.ownerOf(taskId)).toBeUndefined();
    // A caller naming the forgotten task is refused; the follow, vouched for by its journal, is not.
    await expect(h.port.getTask({ id: taskId }, ctx('basic:mallory', 'jsonrpc'))).rejects.toMatchObject({ code: -32001 });

    const [delivery] = await receiver.waitFor('/forgotten', 1);
    expect(delivery!.json).toMatchObject({ task: { id: taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    // The follow's subscription recorded the task again, for the caller who started it.
    expect(await h.registry.ownerOf(taskId)).toBe(ALICE_V1.principal);
  });

  it('notifies the cancel once, whichever of the stream and the CancelTask answer reports it', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context);
    const iterator = h.port.sendStreamingMessage({ message: userText('slow: take your time') }, ALICE_V1)[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as StreamResponse;
    const taskId = 'task' in first ? first.task.id : '';
    await h.port.createTaskPushNotificationConfig({ taskId, url: `${receiver.url}/cancel` }, ALICE_V1);
    const canceled = await h.port.cancelTask({ id: taskId }, ALICE_V1);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    while (!(await iterator.next()).done) {
      // The stream ends with the CANCELED update.
    }
    await flush(h, receiver);
    const deliveries = receiver.at('/cancel');
    expect(deliveries).toHaveLength(1);
    const body = deliveries[0]!.json as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } };
    expect((body.task ?? body.statusUpdate)?.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('retries a transient failure with the same event id', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context);
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V1);
    await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, url: `${receiver.url}/retry` }, ALICE_V1);
    receiver.failNext = 2;
    await streamTurn(h.port, { message: userText('again', { taskId: first.taskId }) }, ALICE_V1);
    const attempts = await receiver.waitFor('/retry', 3);
    await flush(h, receiver);
    expect(receiver.at('/retry')).toHaveLength(3);
    expect(new Set(attempts.map((entry) => entry.headers['a2a-event-id'])).size).toBe(1);
    expect(new Set(attempts.map((entry) => entry.body)).size).toBe(1);
  });

  it('keeps queued jobs across a restart while the receiver is down', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context);
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V1);
    await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, url: `${receiver.url}/later`, token: 'kept' }, ALICE_V1);
    await receiver.down();
    await streamTurn(h.port, { message: userText('while down', { taskId: first.taskId }) }, ALICE_V1);

    // stop() queues every accepted event before it stops; the job waits in the journal.
    await h.restart();
    expect(receiver.received).toHaveLength(0);
    await receiver.up();
    const [delivery] = await receiver.waitFor('/later', 1);
    expect(delivery!.json).toMatchObject({ task: { id: first.taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    expect(delivery!.headers['x-a2a-notification-token']).toBe('kept');
  });

  it('drops a queued job whose config was deleted or moved to another URL', async (context) => {
    const { expect } = context;
    const { h, receiver } = await setup(context);
    const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE_V1);
    await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, url: `${receiver.url}/old`, token: 'old' }, ALICE_V1);
    await receiver.down();
    await streamTurn(h.port, { message: userText('while down', { taskId: first.taskId }) }, ALICE_V1);
    await h.restart();
    // Same config id, new URL and token: the old job must not carry the new token to the old URL.
    await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, url: `${receiver.url}/new`, token: 'new' }, ALICE_V1);
    await receiver.up();
    await flush(h, receiver);
    expect(receiver.at('/old')).toHaveLength(0);
    expect(receiver.at('/new')).toHaveLength(0);
  });
});
