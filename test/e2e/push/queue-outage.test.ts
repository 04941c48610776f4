/**
 * The push queue's Redis going away while turns go on (`push-queue: redis-streams`, the task registry
 * elsewhere): a change that happens meanwhile is held by the gateway, not lost, and its receiver is
 * sent it once the queue's Redis is back, once; held on disk, so a gateway stopped during the outage
 * still sends it after its restart. A redis-server of the test's own, killed and started again on the
 * same port (empty, as a Redis without a volume comes back).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownRedis, type OwnRedis } from '../../support/redis-server.js';
import { environmentSuite, flush, pushedTurnEnd, startHarness } from './harness.js';
import { streamsQueueNamed, turnWhileRedisIsDown } from './outage.js';

const { env, open } = environmentSuite();
let redis: OwnRedis;

beforeAll(async () => {
  redis = await ownRedis();
});
// Runs before the environment's own afterAll (after hooks run last registered first).
afterAll(async () => {
  await redis.stop();
});

/** A gateway on the test's own Redis for its push queue, under keys of its own. */
function queueOnOwnRedis(): Record<string, unknown> {
  return { 'push-redis-url': redis.url, ...streamsQueueNamed(`queue-outage-${randomBytes(4).toString('hex')}`) };
}

/** A task with a push config, then the queue's Redis killed and a second turn of the task answered without it. */
async function turnDuringOutage(options: { subdir?: string } = {}) {
  const h = await startHarness(env(), queueOnOwnRedis(), options);
  open.push(h);
  return { h, ...(await turnWhileRedisIsDown(h, redis, open)) };
}

describe('push notifications while the queue Redis is gone', () => {
  it('are held and sent once it is back: the change is delivered once, in full', async () => {
    const { h, receiver, first, second } = await turnDuringOutage();
    // The turn itself does not need the queue: it is answered in full while Redis is gone.
    const finalState = second.events.flatMap((event) => ('statusUpdate' in event ? [event.statusUpdate.status.state] : [])).at(-1);
    expect(finalState).toBe('TASK_STATE_INPUT_REQUIRED');
    // The queue's client gives a write up at once (maxRetriesPerRequest 1), so 1.5 s is an outage to it as
    // 12 s is to a client with ioredis's default patience (20 reconnects, about 10 s): without the held
    // jobs, the notification is lost in both. Nothing can be sent meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at('/v1')).toHaveLength(0);

    await redis.start();
    const [delivered] = await receiver.waitFor('/v1', 1, 20_000);
    expect(delivered!.json).toMatchObject({ task: { id: first.taskId, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    const lastUpdate = second.events.filter((event) => 'statusUpdate' in event).at(-1);
    expect(delivered!.json).toMatchObject(pushedTurnEnd(lastUpdate));
    // Once: a later notification arrives, and still only one for the held change.
    await flush(h, receiver);
    expect(receiver.at('/v1')).toHaveLength(1);
  }, 60_000);

  it('held by a gateway that stops during the outage, are sent by it after its restart, once', async () => {
    const { h, receiver, second } = await turnDuringOutage({ subdir: `held-${randomBytes(4).toString('hex')}` });
    // Stopped while Redis is still gone: held in memory only, the notification was lost here.
    await h.restart(() => redis.start());
    const [delivered] = await receiver.waitFor('/v1', 1, 20_000);
    expect(delivered!.json).toMatchObject(pushedTurnEnd(second.events.filter((event) => 'statusUpdate' in event).at(-1)));
    await flush(h, receiver);
    expect(receiver.at('/v1')).toHaveLength(1);
  }, 60_000);
});
