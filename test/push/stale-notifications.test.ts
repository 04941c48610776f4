import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPushJob, type DeliveryResult, type PushJob } from '../../src/push/queue/types.js';
import {
  createMemoryDeliveredStates,
  createRedisDeliveredStates,
  skippingStale,
  stateAtOf,
  type DeliveredStates,
} from '../../src/push/stale-notifications.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';

const prefix = `test-push-stale-${process.pid}-${randomBytes(4).toString('hex')}:`;
let redis: Redis;
beforeAll(async () => {
  await requireRedis();
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await redis.quit();
  await deleteRedisKeys(prefix);
});

const silent = { info() {}, warn() {}, error() {} };
const job = (eventId: string, stateAt?: number, configId = 'cfg'): PushJob =>
  newPushJob({ eventId, taskId: 'task-1', configId, owner: 'alice', url: 'https://hooks.example.com/', payload: '{}', stateAt });

function recordingHandler(states: DeliveredStates) {
  const delivered: string[] = [];
  const handler = skippingStale(
    async (next): Promise<DeliveryResult> => {
      delivered.push(next.eventId);
      return { outcome: 'delivered' };
    },
    states,
    silent,
  );
  return { delivered, handler };
}

describe('stale notifications', () => {
  it('orders by when the change was noticed; an artifact update reports no state', () => {
    const status = {
      statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_FAILED' as const, timestamp: '2030-01-01T00:00:00Z' } },
    };
    expect(stateAtOf(status, 5, '1.0')).toBe(5);
    const artifact = { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [] } } };
    expect(stateAtOf(artifact, 5, '1.0')).toBeUndefined();
    // A 0.2.5 receiver is sent the whole Task, whatever the event.
    expect(stateAtOf(artifact, 5, '0.2.5')).toBe(5);
  });

  for (const [name, make] of [
    ['memory', () => createMemoryDeliveredStates()],
    ['redis', () => createRedisDeliveredStates(redis, prefix)],
  ] as const) {
    it(`${name}: drops only what is older than a delivery to the same config`, async () => {
      const states = make();
      const { delivered, handler } = recordingHandler(states);
      expect((await handler(job('newer', 200))).outcome).toBe('delivered');
      expect(await handler(job('older', 100))).toEqual({ outcome: 'skipped', error: 'a newer notification was delivered' });
      // Same instant, no state, or another config: not superseded.
      await handler(job('same', 200));
      await handler(job('artifact'));
      await handler(job('other-config', 100, 'cfg-2'));
      // Noting an older delivery never moves the mark back.
      await handler(job('newest', 300));
      await states.delivered(job('late', 150), 150);
      expect((await handler(job('between', 250))).outcome).toBe('skipped');
      expect(delivered).toEqual(['newer', 'same', 'artifact', 'other-config', 'newest']);
    });

    it(`${name}: a retry of a state that may have arrived is dropped, not one refused before it went out`, async () => {
      const states = make();
      const attempts: string[] = [];
      // The first attempt of each job fails: `slow` after its request went out (given up at the timeout), `refused` before.
      const handler = skippingStale(
        async (next): Promise<DeliveryResult> => {
          attempts.push(`${next.eventId}#${next.attempt}`);
          if (next.attempt > 0) return { outcome: 'delivered' };
          return next.eventId === 'slow' ? { outcome: 'retry', mayHaveArrived: true } : { outcome: 'retry' };
        },
        states,
        silent,
      );
      await handler(job('slow', 100, 'cfg-slow'));
      const retry = { ...job('slow', 100, 'cfg-slow'), attempt: 1, mayHaveArrived: true };
      expect(await handler(retry)).toEqual({ outcome: 'skipped', error: 'an earlier attempt may have arrived' });
      // Another config's state noticed at the same instant was delivered: a retry that never went out is still sent.
      await handler(job('refused', 300, 'cfg-3'));
      await states.delivered(job('same-instant', 300, 'cfg-3'), 300);
      expect((await handler({ ...job('refused', 300, 'cfg-3'), attempt: 1 })).outcome).toBe('delivered');
      expect(attempts).toEqual(['slow#0', 'refused#0', 'refused#1']);
    });
  }
});
