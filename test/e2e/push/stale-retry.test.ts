/**
 * A retry never has the last word: turn 2 ends INPUT_REQUIRED and its webhook answers 503, turn 3 ends
 * FAILED and is delivered while that retry waits for its time, and the INPUT_REQUIRED retry that comes
 * due after it is dropped, so the receiver's last notification says FAILED, as GetTask does. With the
 * local-file queue, and with the Redis queue across two replicas (the turns on different ones,
 * deliveries by whichever replica).
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { ctx, Receiver, startHarness, streamTurn, userText, type Harness, type Received } from './harness.js';
import { replicaSuite } from './replicas.js';

const suite = replicaSuite('stale');
const { replicas } = suite;

const ALICE = ctx('basic:alice', 'jsonrpc');
const DROPPED = 'A2A push notification dropped: a newer one was delivered';
/** Two deliveries at once, as a replica delivers to different webhooks (one webhook still gets one at a time). */
const queue = { concurrency: 2, blockMs: 50, retry: { initialDelayMs: 100, multiplier: 2, maxDelayMs: 400, jitter: 0, maxAttempts: 20 } };

/** The gateway's log lines, and a way to wait for one. */
function capturedLog() {
  const messages: string[] = [];
  const events = new EventEmitter();
  const logger = createLogger('info', {
    write(line: string) {
      messages.push((JSON.parse(line) as { msg: string }).msg);
      events.emit('line');
    },
  });
  const saw = (msg: string, timeoutMs = 8_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!messages.includes(msg)) return;
        clearTimeout(timer);
        events.off('line', check);
        resolve();
      };
      const timer = setTimeout(() => {
        events.off('line', check);
        reject(new Error(`no log line "${msg}"`));
      }, timeoutMs);
      events.on('line', check);
      check();
    });
  return { logger, saw };
}

const stateOf = (entry: Received) => {
  const body = entry.json as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } };
  return (body.task ?? body.statusUpdate)?.status.state;
};

/**
 * The webhook refuses (503) every INPUT_REQUIRED notification and takes the others: INPUT_REQUIRED is
 * retried until FAILED was delivered, whenever that happens, and its next attempt is then dropped (a
 * retry waiting for its time holds back nothing of its webhook, so FAILED is not kept behind it).
 * Without the drop it would be retried until it gives up, and the drop's log line would never come.
 */
function refuseInputRequired(receiver: Receiver): void {
  receiver.answer = (entry) => (stateOf(entry) === 'TASK_STATE_INPUT_REQUIRED' ? 503 : 200);
}

async function scenario(first: Harness, second: Harness, receiver: Receiver, saw: (msg: string) => Promise<void>): Promise<void> {
  const turn1 = await streamTurn(first.port, { message: userText('make a vpc') }, ALICE);
  await first.port.createTaskPushNotificationConfig({ taskId: turn1.taskId, id: 'hook', url: `${receiver.url}/hook` }, ALICE);
  refuseInputRequired(receiver);
  await streamTurn(first.port, { message: userText('add a subnet', { taskId: turn1.taskId }) }, ALICE);
  await receiver.waitFor('/hook', 1);
  await streamTurn(second.port, { message: userText('fail: quota exceeded', { taskId: turn1.taskId }) }, ALICE);

  await saw(DROPPED);
  // Every notification the webhook took: FAILED alone, INPUT_REQUIRED was only ever refused.
  const taken = receiver
    .at('/hook')
    .map(stateOf)
    .filter((state) => state !== 'TASK_STATE_INPUT_REQUIRED');
  expect(taken).toEqual(['TASK_STATE_FAILED']);
  const task = await second.port.getTask({ id: turn1.taskId }, ALICE);
  expect(task.status.state).toBe('TASK_STATE_FAILED');
}

describe('a retry older than a delivered notification is dropped', () => {
  it('local-file queue', async () => {
    const { logger, saw } = capturedLog();
    const h = await startHarness(suite.env(), {}, { subdir: `stale-${Math.random().toString(36).slice(2)}`, queue, logger });
    replicas.closeAfter(h);
    const receiver = await replicas.receiver();
    await scenario(h, h, receiver, saw);
  });

  it('redis-streams queue, two replicas', async () => {
    const { logger, saw } = capturedLog();
    const settings = replicas.settings();
    const a = await replicas.replica(settings, { queue, logger });
    const b = await replicas.replica(settings, { queue, logger });
    const receiver = await replicas.receiver();
    await scenario(a, b, receiver, saw);
  });
});
