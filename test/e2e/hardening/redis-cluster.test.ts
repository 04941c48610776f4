/**
 * `store: redis` on a Redis Cluster, or behind a cluster proxy (the cluster editions of managed Redis):
 * every command and script whose keys are in different slots is refused there (CROSSSLOT). The
 * gateway's keys all start with `redis-prefix`, and the push queue's with its own names, so with one
 * hash tag in all of them (`{a2a-bridge}:`) every key is in one slot and everything works. Without
 * it the cluster would refuse every registry write while reads still worked (tasks answered but never
 * recorded, so never scoped to their caller): the gateway refuses to start instead. A one-node cluster
 * of the test's own, which enforces slots as a real one does.
 */
import { randomBytes } from 'node:crypto';
import { A2AClient } from 'a2a-sdk-025/client';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from '../push/harness.js';
import { startDemoGateway, type TestGateway } from '../../support/gateway.js';
import { ownRedis, type OwnRedis } from '../../support/redis-server.js';
import { userMessage } from '../../support/v1-message.js';
import { rpc } from '../../demo-agent/helpers.js';

let redis: OwnRedis;
let receiver: Receiver;
const open: TestGateway[] = [];

beforeAll(async () => {
  redis = await ownRedis({ cluster: true });
  receiver = await new Receiver().up();
});
afterAll(async () => {
  for (const gateway of open) await gateway.close();
  await receiver?.down();
  await redis?.stop();
});

/** Every Redis name of one gateway under one hash tag. */
function taggedNames(tag: string): Record<string, string> {
  return {
    'redis-prefix': `{${tag}}:`,
    'push-stream': `{${tag}}:push`,
    'push-retry-key': `{${tag}}:push:retry`,
    'push-dead-stream': `{${tag}}:push:dead`,
    'push-consumer-group': `${tag}-push`,
  };
}

async function gatewayOnCluster(names: Record<string, string>): Promise<TestGateway> {
  const gateway = await startDemoGateway({
    store: 'redis',
    'redis-url': redis.url,
    'push-notifications': true,
    'push-allow-private': true,
    'push-queue': 'redis-streams',
    'push-redis-url': redis.url,
    'push-keys': [`k1:${randomBytes(32).toString('base64')}`],
    ...names,
  });
  open.push(gateway);
  return gateway;
}

type V025Parts = { parts?: Array<{ text?: string }> };
/** What a Bailian user reads of a 0.2.5 Task: its artifacts' text, then its status message's. */
const shownText = (task: { artifacts?: V025Parts[]; status?: { message?: V025Parts } }) =>
  [...(task.artifacts ?? []), task.status?.message ?? {}].flatMap((item) => (item.parts ?? []).map((part) => part.text ?? '')).join('');

describe('store: redis on a Redis Cluster', () => {
  it('with one hash tag in every name: turns, reads, lists, push and the 0.2.5 facade all work, and it is all in Redis', async () => {
    const tag = `a2a-${randomBytes(3).toString('hex')}`;
    const gateway = await gatewayOnCluster(taggedNames(tag));

    const first = await rpc(gateway.url, 'SendMessage', { message: userMessage('make a vpc') });
    expect(first.error).toBeUndefined();
    const task = (first.result as { task: { id: string; contextId: string } }).task;
    const hook = await rpc(gateway.url, 'CreateTaskPushNotificationConfig', { taskId: task.id, id: 'hook', url: `${receiver.url}/v1` });
    expect(hook.error).toBeUndefined();

    const second = await rpc(gateway.url, 'SendMessage', { message: userMessage('in cn-hangzhou', { taskId: task.id, contextId: task.contextId }) });
    expect(second.error).toBeUndefined();
    const answered = (second.result as { task: { id: string; status: { state: string } } }).task;
    expect(answered.id).toBe(task.id);

    const read = await rpc(gateway.url, 'GetTask', { id: task.id });
    expect(read.result).toMatchObject({ id: task.id, status: { state: answered.status.state } });
    const history = (read.result as { history?: Array<{ role: string; parts: Array<{ text?: string }> }> }).history ?? [];
    expect(history.filter((m) => m.role === 'ROLE_USER').flatMap((m) => m.parts.map((part) => part.text))).toContain('in cn-hangzhou');
    const listed = await rpc(gateway.url, 'ListTasks', { contextId: task.contextId });
    expect((listed.result as { tasks: Array<{ id: string }> }).tasks.map((t) => t.id)).toEqual([task.id]);

    // Recorded in Redis under its caller (the anonymous principal: no auth here), not only answered.
    const direct = new Redis(redis.url);
    try {
      expect(await direct.hget(`{${tag}}:t:${task.id}`, 'o')).toBe('a2a-1.0:anonymous');
    } finally {
      direct.disconnect();
    }

    const [pushed] = await receiver.waitFor('/v1', 1, 15_000);
    expect(JSON.stringify(pushed!.json)).toContain(task.id);

    // A Bailian caller, with a task id of its own (the gateway's alias keys).
    const client = new A2AClient(gateway.url);
    const facade = (await client.sendMessage({
      message: { kind: 'message', messageId: 'b-1', taskId: 'bailian-task-1', role: 'user', parts: [{ kind: 'text', text: 'make a vpc' }] },
    })) as { result?: { id: string; artifacts?: V025Parts[]; status: { message?: V025Parts } }; error?: unknown };
    expect(facade.error).toBeUndefined();
    expect(facade.result!.id).toBe('bailian-task-1');
    // The demo agent echoes the request: the user reads the agent's words.
    expect(shownText(facade.result!)).toContain('make a vpc');
    const again = (await client.getTask({ id: 'bailian-task-1' })) as { result?: { id: string } };
    expect(again.result?.id).toBe('bailian-task-1');
  }, 60_000);

  it('with the default names it does not start, and says which settings need the hash tag', async () => {
    await expect(gatewayOnCluster({ 'redis-prefix': `a2a-untagged-${randomBytes(3).toString('hex')}:` })).rejects.toThrow(
      /the Redis is a cluster, and redis-prefix must share one hash tag/,
    );
    // The same settings with the tag start.
    await expect(gatewayOnCluster(taggedNames('a2a'))).resolves.toBeDefined();
    await expect(gatewayOnCluster({ ...taggedNames('a2a'), 'push-dead-stream': 'a2a:dead' })).rejects.toThrow(
      /push-stream, push-retry-key, push-dead-stream/,
    );
  }, 60_000);
});
