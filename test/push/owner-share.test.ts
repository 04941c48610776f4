/**
 * The delivery slots are shared between owners: one owner's many webhooks that never answer fill every
 * slot, and another owner's notification, queued behind all of them, takes the next slot that frees
 * (not the one after the first owner's whole backlog). Against real Redis for the Redis-streams queue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { createRedisStreamsQueue } from '../../src/push/queue/redis-streams.js';
import { newPushJob, type DeliveryResult, type PushHandler, type PushJob, type PushQueue } from '../../src/push/queue/types.js';
import { waitUntil } from '../support/wait-until.js';
import { redisQueueRun } from './redis-queue-run.js';

const run = redisQueueRun('owners');
const { cleanup } = run;
const SLOTS = 8;
const ALICE_WEBHOOKS = 24;

const job = (owner: string, configId: string): PushJob =>
  newPushJob({
    eventId: `${owner}-${configId}`,
    taskId: `t-${configId}`,
    configId,
    owner,
    url: `http://127.0.0.1:9/${owner}/${configId}`,
    payload: '{}',
  });

/** Alice's receivers hold every request until the test lets one go; Bob's answers at once. */
function receivers() {
  const held: Array<(result: DeliveryResult) => void> = [];
  let aliceAttempts = 0;
  let aliceAttemptsBeforeBob: number | undefined;
  const handler: PushHandler = async (next) => {
    if (next.owner === 'bob') {
      aliceAttemptsBeforeBob ??= aliceAttempts;
      return { outcome: 'delivered' };
    }
    aliceAttempts += 1;
    return new Promise((resolve) => held.push(resolve));
  };
  return {
    handler,
    held,
    aliceAttempts: () => aliceAttempts,
    bobDelivered: () => aliceAttemptsBeforeBob,
    aliceDelivered: () => aliceAttempts - held.length,
    /** Lets Alice's deliveries end (as the timeout would), one at a time, until `done` holds. */
    async release(done: () => boolean): Promise<void> {
      while (!done()) {
        await waitUntil(async () => held.length > 0 || done(), 10_000);
        held.shift()?.({ outcome: 'delivered' });
      }
    },
  };
}

/** Alice's backlog fills every slot before Bob's one notification is queued. */
async function fillThenBob(queue: PushQueue, webhooks: ReturnType<typeof receivers>): Promise<void> {
  queue.start(webhooks.handler);
  for (let n = 0; n < ALICE_WEBHOOKS; n++) await queue.enqueue(job('alice', `slow-${n}`));
  await waitUntil(async () => webhooks.aliceAttempts() === SLOTS, 10_000);
  await queue.enqueue(job('bob', 'mine'));
}

describe("another owner's notification takes the next free slot, not a place behind one owner's backlog", () => {
  it('local-file queue', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'push-owners-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const queue = createLocalFileQueue({ dir, concurrency: SLOTS });
    const webhooks = receivers();
    cleanup.push(() => queue.stop());
    cleanup.push(() => webhooks.held.splice(0).forEach((end) => end({ outcome: 'delivered' })));
    await fillThenBob(queue, webhooks);
    await webhooks.release(() => webhooks.bobDelivered() !== undefined);
    // Bob's went at the first slot freed: none of Alice's other 16 webhooks was attempted before it.
    expect(webhooks.bobDelivered()).toBe(SLOTS);
  });

  it('redis-streams queue: the replica reads past the backlog to find the other owner', async () => {
    const names = run.names();
    const queue = createRedisStreamsQueue({ ...names, leaseTimeoutMs: 60_000, blockMs: 50, concurrency: SLOTS });
    const webhooks = receivers();
    cleanup.push(() => queue.stop());
    cleanup.push(() => webhooks.held.splice(0).forEach((end) => end({ outcome: 'delivered' })));
    await fillThenBob(queue, webhooks);
    // Every slot busy, the stream is still read up to Bob's entry (Alice's 16 waiting, and his).
    await expect
      .poll(async () => Number(((await run.redis.xpending(names.stream, names.group)) as [number])[0]), { timeout: 10_000 })
      .toBe(ALICE_WEBHOOKS + 1);
    await webhooks.release(() => webhooks.bobDelivered() !== undefined);
    // One more of hers when the first slot freed in the instant between Bob's entry read and taken in.
    expect(webhooks.bobDelivered()).toBeLessThanOrEqual(SLOTS + 1);
    // Nothing read ahead is lost: each of Alice's goes once, as the slots free.
    await webhooks.release(() => webhooks.aliceDelivered() === ALICE_WEBHOOKS);
    await expect.poll(() => run.redis.xlen(names.stream), { timeout: 5_000 }).toBe(0);
    expect(webhooks.aliceAttempts()).toBe(ALICE_WEBHOOKS);
  });
});
