/**
 * A receiver that answers 200 a little after `push-timeout-ms` has every notification, yet each attempt is
 * given up at the timeout: its retries are dropped (README, "Stale retries"), not sent once per attempt
 * (`push-max-attempts` times) and then logged dead-lettered at error. The real gateway, the SDK agent.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSdkGateway, type TestGateway } from '../../support/gateway.js';
import { Receiver } from './harness.js';
import { rpc } from './unwatched.js';

let gateway: TestGateway;
let receiver: Receiver;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'push-slow-once-'));
  receiver = await new Receiver().up();
  receiver.answer = () => new Promise((resolve) => setTimeout(() => resolve(200), 900));
  gateway = await startSdkGateway({
    'push-notifications': true,
    'push-allow-private': true,
    'persistence-dir': dir,
    'push-max-attempts': 4,
    'push-timeout-ms': 500,
  });
});
afterAll(async () => {
  await gateway?.close();
  await receiver?.down();
  await rm(dir, { recursive: true, force: true });
});

/** Jobs the local-file queue's journal still holds (enqueued or retried, not yet acked or dead-lettered). */
async function liveQueuedJobs(): Promise<string[]> {
  const live = new Set<string>();
  for (const line of (await readFile(join(dir, 'push', 'journal.jsonl'), 'utf8')).split('\n').filter(Boolean)) {
    const record = JSON.parse(line) as { t: string; job?: { jobId: string }; jobId?: string };
    if (record.job) live.add(record.job.jobId);
    else live.delete(record.jobId!);
  }
  return [...live];
}

it('a receiver answering just after push-timeout-ms gets COMPLETED once, and nothing is dead-lettered', async () => {
  const sent = await rpc(gateway.url, 'SendMessage', {
    message: { messageId: 'm-slow-once', role: 'ROLE_USER', parts: [{ text: 'for a slow receiver' }] },
    configuration: { taskPushNotificationConfig: { url: `${receiver.url}/slow` } },
  });
  expect(sent.error).toBeUndefined();
  await receiver.waitFor('/slow', 1);
  // Attempt 2 comes due about 1 s after the first timed out, and is dropped instead of sent; once that
  // is journaled, the queue holds nothing that attempts 3 and 4 (or a dead letter) could come of.
  await expect
    .poll(() => gateway.log().some((line) => line.msg === 'A2A push notification retry dropped: an earlier attempt may have arrived'), {
      timeout: 8_000,
    })
    .toBe(true);
  await expect.poll(liveQueuedJobs).toEqual([]);
  expect(receiver.at('/slow')).toHaveLength(1);
  expect(gateway.log().filter((line) => line.msg === 'A2A push notification dead-lettered')).toEqual([]);
});
