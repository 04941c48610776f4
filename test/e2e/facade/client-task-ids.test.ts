/**
 * A 0.2.5 client that chooses its own task id (`message.taskId: "test-task-<uuid>"` on its first
 * message): the facade starts a new task and the client's id is the task's id for that client from
 * then on, in every method, on both stores; an id another principal holds is refused, never shared.
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

describe('an id held by another principal is refused, never shared (two replicas sharing Redis)', () => {
  const prefix = `a2a-bridge-test:${randomUUID()}:`;
  let keyed: RunningGateway;
  let open: RunningGateway;
  beforeAll(async () => {
    const shared = { store: 'redis', 'redis-url': REDIS_URL, 'redis-prefix': prefix };
    keyed = await startFacadeGateway({ ...shared, bailian: { 'api-key': API_KEY } });
    open = await startFacadeGateway(shared);
  });
  afterAll(async () => {
    await keyed.close();
    await open.close();
  });

  it('-32602 on message/send and message/stream; -32001 on tasks/get', async () => {
    const taskId = `test-task-${randomUUID()}`;
    const mine = await rpc(keyed.url, 'message/send', { message: userMessage({ text: 'mine', taskId }) }, { headers: { 'X-API-KEY': API_KEY } });
    expect(mine.body.result.id).toBe(taskId);
    const theirs = await rpc(open.url, 'message/send', { message: userMessage({ text: 'theirs', taskId }) });
    expect(theirs.body.error).toMatchObject({ code: -32602 });
    expect(theirs.body.error.message).toMatch(/already in use/);
    const streamed = await rpc(`${open.url}/stream`, 'message/stream', { message: userMessage({ text: 'theirs', taskId }) });
    expect(streamed.body.error.code).toBe(-32602);
    expect((await rpc(open.url, 'tasks/get', { id: taskId })).body.error.code).toBe(-32001);
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
