/**
 * A receiver slower than `push-timeout-ms` gets every notification, yet answers each too late: each attempt
 * is given up and retried. Its states must not go backwards (SUBMITTED, WORKING, artifact, COMPLETED, then
 * SUBMITTED again): what went out and was given up counts as sent for the stale-state check, so the
 * retries of older notifications are dropped. Real HTTP to a local receiver, the local-file queue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createPushHandler } from '../../src/push/dispatch.js';
import { createLocalFileQueue } from '../../src/push/queue/local-file.js';
import { newPushJob } from '../../src/push/queue/types.js';
import { createMemoryDeliveredStates, skippingStale } from '../../src/push/stale-notifications.js';
import { startReceiver } from './fixtures/receiver.js';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const TIMEOUT_MS = 200;
const silent = { info() {}, warn() {}, error() {} };

it('a receiver slower than the timeout gets each notification once, never an older one after a newer one', async () => {
  const receiver = await startReceiver((_request, response) => setTimeout(() => response.end('ok'), TIMEOUT_MS + 150));
  cleanup.push(() => receiver.close());
  const dir = await mkdtemp(join(tmpdir(), 'push-slow-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const deadLettered: string[] = [];
  const logger = { ...silent, error: (_fields: object, message: string) => deadLettered.push(message) };
  const retry = { initialDelayMs: 20, multiplier: 1, maxDelayMs: 20, jitter: 0, maxAttempts: 3 };
  const queue = createLocalFileQueue({ dir, retry, logger });
  cleanup.push(() => queue.stop());
  const deliver = createPushHandler({ allowPrivate: true, timeoutMs: TIMEOUT_MS, resolveHeaders: async () => ({}) });
  queue.start(skippingStale(deliver, createMemoryDeliveredStates(), silent));

  // In the order the gateway noticed them; the artifact update reports no state.
  const events = ['SUBMITTED', 'WORKING', 'artifact', 'COMPLETED'];
  for (const [at, name] of events.entries()) {
    const noticedAt = 1_000 + at;
    await queue.enqueue(
      newPushJob({
        eventId: `task-1:${name}`,
        taskId: 'task-1',
        configId: 'cfg',
        owner: 'alice',
        url: `${receiver.url}/hook`,
        payload: JSON.stringify({ name }),
        noticedAt,
        ...(name === 'artifact' ? {} : { stateAt: noticedAt }),
      }),
    );
  }
  await expect.poll(() => queue.depth!(), { timeout: 15_000, interval: 50 }).toBe(0);

  const arrived = receiver.received.map((request) => (JSON.parse(request.body) as { name: string }).name);
  // Each once: a retry of what went out and was given up is dropped, not sent again at every attempt.
  expect(arrived).toEqual(events);
  expect(deadLettered).toEqual([]);
}, 20_000);
