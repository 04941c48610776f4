/**
 * The one Redis of push (`store: redis`: configs and claims; `push-queue: redis-streams` with no
 * `push-redis-url` of its own) going away for longer than its client waits, while a turn ends: the
 * change is noticed while its configs cannot be read. It is held by the gateway, not lost, and once
 * Redis is back (with its data: a Redis with a volume) the receiver is sent it once, with the event id
 * the change has wherever it is noticed; held on disk, so a gateway stopped during the outage sends it
 * after its restart. A redis-server of the test's own, killed and started again on the same port.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../src/model/index.js';
import { stableEventId } from '../../../src/push/event-id.js';
import { connectRedis } from '../../../src/redis/connection.js';
import { environmentSuite, flush, pushedTurnEnd, startHarness } from './harness.js';
import { ownRedis, type OwnRedis } from '../../support/redis-server.js';
import { streamsQueueNamed, turnWhileRedisIsDown } from './outage.js';
import { capturedLog } from '../../support/captured-log.js';

let redis: OwnRedis;
/** The config store's connection: it gives a command up after one reconnection, so a 2 s outage outlasts it. */
let configs: Redis;

beforeAll(async () => {
  redis = await ownRedis({ keepData: true });
  configs = connectRedis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  configs.on('error', () => undefined);
});
afterEach(async () => {
  await redis.start();
});
afterAll(async () => {
  configs.disconnect();
  await redis.remove();
});
// Registered after the hooks above: its afterEach (closing what the test opened) runs before theirs (Redis back up).
const { env, open } = environmentSuite();

/** What push logs once a change whose configs could not be read is held (journaled, or in memory). */
const HOLDING = 'A2A push config store out of reach: holding changes';

/** Configs, claims and queue all on the test's Redis, under names of their own; the queue's URL is the store's. */
function onOwnRedis(): Record<string, unknown> {
  const base = `config-outage-${randomBytes(4).toString('hex')}`;
  return {
    store: 'redis',
    'redis-url': redis.url,
    'redis-prefix': `${base}:`,
    'push-keys': [`k1:${randomBytes(32).toString('base64')}`],
    ...streamsQueueNamed(base),
  };
}

/** A task with a push config, then Redis killed and a second turn of the task answered without it. */
async function turnDuringOutage(options: { subdir?: string } = {}) {
  const { logger, messages } = capturedLog();
  // A test waits for the line telling it a change is held.
  const holding = () => messages.some((message) => message.startsWith(HOLDING));
  const h = await startHarness(env(), onOwnRedis(), { redis: configs, logger, ...options });
  open.push(h);
  const { receiver, first, second } = await turnWhileRedisIsDown(h, redis, open);
  const lastUpdate = second.events.filter((event) => 'statusUpdate' in event).at(-1) as StreamResponse;
  return { h, receiver, taskId: first.taskId, second, lastUpdate, holding };
}

describe('push notifications while the config store Redis is gone', () => {
  it('a change noticed then is held and sent once Redis is back: once, with its stable event id', async () => {
    const { h, receiver, taskId, second, lastUpdate, holding } = await turnDuringOutage();
    const finalState = second.events.flatMap((event) => ('statusUpdate' in event ? [event.statusUpdate.status.state] : [])).at(-1);
    expect(finalState).toBe('TASK_STATE_INPUT_REQUIRED');
    // The config store's client gave up (one reconnection, 100 ms): its read of the configs failed, the change is held.
    await expect.poll(holding, { timeout: 10_000 }).toBe(true);
    expect(receiver.at('/v1')).toHaveLength(0);

    await redis.start();
    const [delivered] = await receiver.waitFor('/v1', 1, 20_000);
    expect(delivered!.json).toMatchObject(pushedTurnEnd(lastUpdate));
    const eventId = stableEventId(taskId, lastUpdate);
    expect(eventId).toBeDefined();
    expect(delivered!.headers['a2a-event-id']).toBe(eventId);
    // Once: a later notification arrives, and still only one for the held change.
    await flush(h, receiver);
    expect(receiver.at('/v1')).toHaveLength(1);
  }, 60_000);

  it('held by a gateway that stops during the outage, is sent by it after its restart, once', async () => {
    const { h, receiver, taskId, lastUpdate, holding } = await turnDuringOutage({ subdir: `held-${randomBytes(4).toString('hex')}` });
    await expect.poll(holding, { timeout: 10_000 }).toBe(true);
    await h.restart(() => redis.start());
    const [delivered] = await receiver.waitFor('/v1', 1, 20_000);
    expect(delivered!.json).toMatchObject(pushedTurnEnd(lastUpdate));
    expect(delivered!.headers['a2a-event-id']).toBe(stableEventId(taskId, lastUpdate));
    await flush(h, receiver);
    expect(receiver.at('/v1')).toHaveLength(1);
  }, 60_000);
});
