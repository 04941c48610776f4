/**
 * A 0.2.5 client that chooses its own task id (`message.taskId: "test-task-<uuid>"` on its first
 * message): the facade starts a new task and the client's id is the task's id for that client from
 * then on, in every method, on both stores. The id is that client's: another principal naming it
 * neither reaches the task nor learns that it exists.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2AClient } from 'a2a-sdk-025/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../../src/app.js';
import { demoReply } from '../../../src/demo-agent/index.js';
import { startSdkV1Agent, sdkReply, type RunningSdkV1Agent } from '../../support/sdk-v1-agent.js';
import { API_KEY, collect, openStream, results, rpc, sdkParams, sentText, startFacadeGateway, userMessage } from '../../support/facade.js';
import { REDIS_URL, requireRedis } from '../../support/redis.js';
import { Receiver } from '../push/harness.js';

beforeAll(requireRedis);

const stores = [
  { name: 'memory', config: (_prefix: string, dir: string) => ({ 'push-notifications': true, 'push-allow-private': true, 'persistence-dir': dir }) },
  {
    name: 'redis',
    config: (prefix: string, dir: string) => ({
      store: 'redis',
      'redis-url': REDIS_URL,
      'redis-prefix': prefix,
      'push-notifications': true,
      'push-allow-private': true,
      'persistence-dir': dir,
    }),
  },
];

describe.each(stores)('client-chosen task ids ($name store), in front of the embedded demo agent', ({ config }) => {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  let gateway: RunningGateway;
  let client: A2AClient;
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bridge-ids-'));
  beforeAll(async () => {
    gateway = await startFacadeGateway(config(prefix, dir));
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("send, follow up, get and stream: the client's id every time", async () => {
    const taskId = `test-task-${randomUUID()}`;
    const first: any = await client.sendMessage(sdkParams('one', { taskId }));
    expect(first.error).toBeUndefined();
    expect(first.result).toMatchObject({ kind: 'task', id: taskId, status: { state: 'completed' } });
    expect(sentText(first.result)).toBe(demoReply('one', 1).full);

    // The follow-up reaches the same upstream task: the demo agent counts the turn.
    const second: any = await client.sendMessage(sdkParams('two', { taskId }));
    expect(second.result).toMatchObject({ id: taskId, contextId: first.result.contextId });
    expect(sentText(second.result)).toBe(demoReply('two', 2).full);

    const got: any = await client.getTask({ id: taskId });
    expect(got.result).toMatchObject({ kind: 'task', id: taskId });

    const events = await collect(client.sendMessageStream(sdkParams('three', { taskId })));
    expect(events.length).toBeGreaterThan(2);
    for (const event of events) expect(event.kind === 'task' ? event.id : event.taskId).toBe(taskId);
  });

  it('message/stream opening a task with its own id', async () => {
    const taskId = `test-task-${randomUUID()}`;
    const stream = await openStream(`${gateway.url}/stream`, 'message/stream', { message: userMessage({ text: 'streamed', taskId }) });
    const events = results(await stream.rest());
    expect(events[0]).toMatchObject({ kind: 'task', id: taskId });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', taskId, final: true });
    const got = await rpc(gateway.url, 'tasks/get', { id: taskId });
    expect(got.body.result.id).toBe(taskId);
  });

  it("push configs are set and read under the client's id", async () => {
    const taskId = `test-task-${randomUUID()}`;
    await client.sendMessage(sdkParams('push me', { taskId }));
    const pushNotificationConfig = { id: 'hook-1', url: 'https://hooks.example.com/a2a', token: 'tok' };
    const set = await rpc(gateway.url, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig });
    expect(set.body.result).toMatchObject({ taskId, pushNotificationConfig: { id: 'hook-1' } });
    const got = await rpc(gateway.url, 'tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: 'hook-1' });
    expect(got.body.result).toMatchObject({ taskId, pushNotificationConfig: { url: 'https://hooks.example.com/a2a' } });
    const list = await rpc(gateway.url, 'tasks/pushNotificationConfig/list', { id: taskId });
    expect(list.body.result.map((entry: any) => entry.taskId)).toEqual([taskId]);
  });

  it("a pushed 0.2.5 Task names the task by the client's id, in its messages and its event id too", async () => {
    const receiver = await new Receiver().up();
    try {
      const taskId = `test-task-${randomUUID()}`;
      await client.sendMessage(sdkParams('first', { taskId }));
      await rpc(gateway.url, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { url: `${receiver.url}/ids` } });
      await client.sendMessage(sdkParams('second', { taskId }));
      const [delivery] = await receiver.waitFor('/ids', 1);
      const body = delivery!.json as { kind: string; id: string; status: { message?: { taskId?: string } }; history?: Array<{ taskId?: string }> };
      expect(body).toMatchObject({ kind: 'task', id: taskId });
      // The stable form (the demo stamps its statuses), its task-id prefix the client's.
      expect(delivery!.headers['a2a-event-id']).toMatch(new RegExp(`^${taskId}:[0-9a-f]{32}$`));
      const named = [body.status.message, ...(body.history ?? [])].flatMap((message) => (message?.taskId ? [message.taskId] : []));
      expect(named.length).toBeGreaterThan(0);
      expect(new Set(named)).toEqual(new Set([taskId]));
    } finally {
      await receiver.down();
    }
  });

  it('an unknown id on tasks/get is still -32001', async () => {
    const answer = await rpc(gateway.url, 'tasks/get', { id: `never-${randomUUID()}` });
    expect(answer.body.error.code).toBe(-32001);
  });
});

/** One caller of the facade: where it posts and the key it sends. */
interface Caller {
  url: string;
  headers: Record<string, string>;
}

const OTHER_KEY = 'bailian-other-key-4567';

/** Two principals, each through its own replica (Redis shared) or both through one (memory store). */
const twoCallers = [
  {
    name: 'one replica, memory store, two keys',
    async start(): Promise<{ a: Caller; b: Caller; gateways: RunningGateway[] }> {
      const gateway = await startFacadeGateway({ bailian: { 'api-keys': [API_KEY, OTHER_KEY] } });
      return {
        a: { url: gateway.url, headers: { 'X-API-KEY': API_KEY } },
        b: { url: gateway.url, headers: { 'X-API-KEY': OTHER_KEY } },
        gateways: [gateway],
      };
    },
  },
  {
    name: 'two replicas sharing Redis, a keyed caller and an anonymous one',
    async start(): Promise<{ a: Caller; b: Caller; gateways: RunningGateway[] }> {
      const shared = { store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': `a2a-bridge-test:${randomUUID()}:` };
      const keyed = await startFacadeGateway({ ...shared, bailian: { 'api-key': API_KEY } });
      const open = await startFacadeGateway(shared);
      return { a: { url: keyed.url, headers: { 'X-API-KEY': API_KEY } }, b: { url: open.url, headers: {} }, gateways: [keyed, open] };
    },
  },
];

/**
 * A caller's id names a task for that caller only. Another credential naming it is told exactly what an
 * id nobody holds gets: a message opens a task of its own under that id, every other method -32001. So
 * nothing tells it that the id is in use (before, a message got "Task id X is already in use").
 */
describe.each(twoCallers)("an id is its caller's own: another credential learns nothing of it ($name)", ({ start }) => {
  let a: Caller;
  let b: Caller;
  let gateways: RunningGateway[] = [];
  beforeAll(async () => {
    ({ a, b, gateways } = await start());
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
  });

  const send = (caller: Caller, text: string, taskId?: string) =>
    rpc(caller.url, 'message/send', { message: userMessage({ text, ...(taskId ? { taskId } : {}) }) }, { headers: caller.headers });
  const get = (caller: Caller, taskId: string) => rpc(caller.url, 'tasks/get', { id: taskId }, { headers: caller.headers });

  it("a message naming another caller's id opens the sender's own task, as an id nobody holds does", async () => {
    const taskId = `order-${randomUUID()}`;
    const mine = await send(a, 'mine', taskId);
    expect(mine.body.result).toMatchObject({ kind: 'task', id: taskId, status: { state: 'completed' } });

    const theirs = await send(b, 'theirs', taskId);
    const fresh = await send(b, 'fresh', `order-${randomUUID()}`);
    for (const answer of [theirs, fresh]) {
      expect(answer.body.error).toBeUndefined();
      expect(answer.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    }
    expect(theirs.body.result.id).toBe(taskId);
    // A new task (the agent's first turn in it), in a context of its own.
    expect(sentText(theirs.body.result)).toBe(demoReply('theirs', 1).full);
    expect(theirs.body.result.contextId).not.toBe(mine.body.result.contextId);

    // Streamed, B's message goes on with B's task; A's goes on with A's.
    const streamed = await openStream(
      `${b.url}/stream`,
      'message/stream',
      { message: userMessage({ text: 'theirs again', taskId }) },
      { headers: b.headers },
    );
    const events = results(await streamed.rest());
    expect(events.length).toBeGreaterThan(1);
    for (const event of events) expect(event.kind === 'task' ? event.contextId : event.contextId).toBe(theirs.body.result.contextId);
    const again = await send(a, 'mine again', taskId);
    expect(again.body.result).toMatchObject({ id: taskId, contextId: mine.body.result.contextId });
    expect(sentText(again.body.result)).toBe(demoReply('mine again', 2).full);

    expect((await get(a, taskId)).body.result.contextId).toBe(mine.body.result.contextId);
    expect((await get(b, taskId)).body.result.contextId).toBe(theirs.body.result.contextId);
  });

  it("a message naming another caller's task by the agent's id opens a task of the sender's too", async () => {
    const mine = await send(a, 'no id of mine');
    const upstreamId = mine.body.result.id as string;
    const theirs = await send(b, 'theirs', upstreamId);
    expect(theirs.body.error).toBeUndefined();
    expect(theirs.body.result).toMatchObject({ kind: 'task', id: upstreamId, status: { state: 'completed' } });
    expect(sentText(theirs.body.result)).toBe(demoReply('theirs', 1).full);
    expect((await get(a, upstreamId)).body.result.contextId).toBe(mine.body.result.contextId);
    expect((await get(b, upstreamId)).body.result.contextId).toBe(theirs.body.result.contextId);
  });

  it('every other method answers an id only another caller holds -32001, as an unknown id', async () => {
    const taskId = `order-${randomUUID()}`;
    await send(a, 'mine', taskId);
    const unknown = `order-${randomUUID()}`;
    for (const id of [taskId, unknown]) {
      for (const method of ['tasks/get', 'tasks/cancel']) {
        const answer = await rpc(b.url, method, { id }, { headers: b.headers });
        expect(answer.body.error).toEqual({ code: -32001, message: expect.any(String) });
      }
      const resubscribed = await rpc(`${b.url}/stream`, 'tasks/resubscribe', { id }, { headers: b.headers });
      expect(resubscribed.body.error.code).toBe(-32001);
    }
  });
});

describe('client-chosen ids in front of a real a2a-js 1.x server (a2a-0.2.5 profile)', () => {
  let agent: RunningSdkV1Agent;
  let gateway: RunningGateway;
  let client: A2AClient;
  beforeAll(async () => {
    agent = await startSdkV1Agent();
    gateway = await startFacadeGateway({ upstream: { url: agent.url }, bailian: { profile: 'a2a-0.2.5' } });
    client = new A2AClient(gateway.url);
  });
  afterAll(async () => {
    await gateway.close();
    await agent.close();
  });

  it("the task answers under the client's id; cancel of the finished task is -32002 under that id", async () => {
    const taskId = `test-task-${randomUUID()}`;
    const sent: any = await client.sendMessage(sdkParams('hello', { taskId }));
    expect(sent.result).toMatchObject({ kind: 'task', id: taskId, status: { state: 'completed' } });
    expect(sentText(sent.result)).toBe(sdkReply('hello', 1).full);
    const got: any = await client.getTask({ id: taskId });
    expect(got.result).toMatchObject({ id: taskId, status: { state: 'completed' } });
    const canceled: any = await client.cancelTask({ id: taskId });
    expect(canceled.error.code).toBe(-32002);
    // What goes wrong with the task names it as the client knows it, never by the agent's id.
    const uuids = (text: string) => text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [];
    const refusal = (await rpc(gateway.url, 'tasks/resubscribe', { id: taskId })).text;
    expect(refusal).toMatch(/-3200[14]/);
    expect(refusal).toContain(taskId);
    for (const answer of [refusal, JSON.stringify(canceled)]) expect(uuids(answer).every((uuid) => taskId.endsWith(uuid))).toBe(true);
    // A message to the finished task, sent or streamed: refused under the client's id, with 0.2.5's name of its state.
    for (const [url, method] of [
      [gateway.url, 'message/send'],
      [`${gateway.url}/stream`, 'message/stream'],
    ] as const) {
      const again = await rpc(url, method, { message: userMessage({ text: 'more', taskId }) });
      expect(again.body.error).toEqual({ code: -32004, message: `Task ${taskId} is in a terminal state (completed) and cannot be modified` });
    }
  });
});
