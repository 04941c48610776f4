import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, beforeAll } from 'vitest';
import { defaultConfig } from '../../src/config/schema.js';
import { createPushConfigStore, createPushHandler, createPushKeyRing, createPushQueue, newPushJob } from '../../src/push/index.js';
import { resolveNotificationHeaders } from '../../src/push/payload.js';
import { startReceiver } from './fixtures/receiver.js';
import { Recorder } from './fixtures/recorder.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'push-index-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('push wiring from the gateway config', () => {
  it('stores a config, queues a job on the local file queue and delivers it with the stored secrets', async () => {
    const dir = await tempDir();
    const config = defaultConfig({ 'persistence-dir': dir, 'push-notifications': true, 'push-allow-private': true });
    const keyRing = createPushKeyRing(config);
    expect((await stat(join(dir, 'push_keys.json'))).mode & 0o777).toBe(0o600);
    const store = createPushConfigStore(config, { keyRing });
    const target = await startReceiver();
    cleanup.push(() => target.close());
    await store.create('alice', 'task-1', {
      id: 'w1',
      url: `${target.url}/hook`,
      token: 'tok',
      authentication: { scheme: 'Bearer', credentials: 'cb' },
    });

    const queue = createPushQueue(config, { retry: { initialDelayMs: 10 } });
    cleanup.push(() => queue.stop());
    queue.start(
      createPushHandler({
        allowPrivate: config['push-allow-private'],
        timeoutMs: config['push-timeout-ms'],
        resolveHeaders: resolveNotificationHeaders(store),
      }),
    );
    for (const stored of await store.forTask('task-1')) {
      await queue.enqueue(
        newPushJob({ eventId: 'e1', taskId: 'task-1', configId: stored.id, owner: stored.owner, url: stored.config.url, payload: '{"task":{}}' }),
      );
    }
    const [request] = await target.waitFor(1);
    expect(request?.headers['x-a2a-notification-token']).toBe('tok');
    expect(request?.headers.authorization).toBe('Bearer cb');
    expect(request?.body).toBe('{"task":{}}');
  });

  it('selects the redis-streams queue with the push-* keys', async () => {
    const prefix = `test-push-idx-${process.pid}-${randomBytes(4).toString('hex')}`;
    const config = defaultConfig({
      'push-queue': 'redis-streams',
      'redis-url': REDIS_URL,
      'push-stream': `${prefix}:push`,
      'push-retry-key': `${prefix}:push:retry`,
      'push-dead-stream': `${prefix}:push:dead`,
      'push-consumer-group': `${prefix}-group`,
      'push-consumer-name': 'worker-1',
      'push-lease-timeout-ms': 1_000,
    });
    const redis = new Redis(REDIS_URL);
    cleanup.push(async () => {
      await redis.del(`${prefix}:push`, `${prefix}:push:retry`, `${prefix}:push:dead`);
      await redis.quit();
    });
    const queue = createPushQueue(config, { blockMs: 100 });
    cleanup.push(() => queue.stop());
    const recorder = new Recorder();
    queue.start(recorder.handler);
    await queue.enqueue(newPushJob({ eventId: 'e1', taskId: 't', configId: 'c', owner: '', url: 'https://x.example/', payload: '{}' }));
    await recorder.until((r) => r.calls.length === 1);
    const groups = (await redis.xinfo('GROUPS', `${prefix}:push`)) as unknown[][];
    expect(groups[0]).toContain(`${prefix}-group`);
    const consumers = (await redis.xinfo('CONSUMERS', `${prefix}:push`, `${prefix}-group`)) as unknown[][];
    expect(consumers[0]).toContain('worker-1');
  });
});
