/**
 * A retry never has the last word, and is not lost either: turn 2 ends INPUT_REQUIRED and its webhook
 * answers 503 for a while, turn 3 ends FAILED meanwhile. INPUT_REQUIRED keeps its place at the head of
 * the webhook's line, so FAILED is sent only once INPUT_REQUIRED got through: the receiver gets both, in
 * the order they happened, and its last notification says FAILED, as GetTask does (before, FAILED went
 * first and INPUT_REQUIRED's retry was then dropped as stale). With the local-file queue, and with the
 * Redis queue across two replicas (the turns on different ones, deliveries by whichever replica).
 */
import { describe, expect, it } from 'vitest';
import { ctx, Receiver, startHarness, streamTurn, userText, type Harness, type Received } from './harness.js';
import { replicaSuite } from './replicas.js';
import { capturedLog } from '../../support/captured-log.js';

const suite = replicaSuite('stale');
const { replicas } = suite;

const ALICE = ctx('basic:alice', 'jsonrpc');
const DROPPED = 'A2A push notification dropped: a newer one was delivered';
/** Two deliveries at once, as a replica delivers to different webhooks (one webhook still gets one at a time). */
const queue = { concurrency: 2, blockMs: 50, retry: { initialDelayMs: 100, multiplier: 2, maxDelayMs: 400, jitter: 0, maxAttempts: 20 } };

const stateOf = (entry: Received) => {
  const body = entry.json as { task?: { status: { state: string } }; statusUpdate?: { status: { state: string } } };
  return (body.task ?? body.statusUpdate)?.status.state;
};

/**
 * The webhook refuses (503) INPUT_REQUIRED while `refusing` says so and takes everything else: FAILED,
 * queued meanwhile, is then sent only once INPUT_REQUIRED got through. Each answer is noted with its state.
 */
function refuseInputRequiredWhile(receiver: Receiver, refusing: () => boolean): Array<[state: string | undefined, status: number]> {
  const answered: Array<[string | undefined, number]> = [];
  receiver.answer = (entry) => {
    const state = stateOf(entry);
    const status = state === 'TASK_STATE_INPUT_REQUIRED' && refusing() ? 503 : 200;
    answered.push([state, status]);
    return status;
  };
  return answered;
}

async function scenario(first: Harness, second: Harness, receiver: Receiver, logged: (msg: string) => boolean): Promise<void> {
  const turn1 = await streamTurn(first.port, { message: userText('make a vpc') }, ALICE);
  await first.port.createTaskPushNotificationConfig({ taskId: turn1.taskId, id: 'hook', url: `${receiver.url}/hook` }, ALICE);
  let refusing = true;
  const answered = refuseInputRequiredWhile(receiver, () => refusing);
  await streamTurn(first.port, { message: userText('add a subnet', { taskId: turn1.taskId }) }, ALICE);
  await receiver.waitFor('/hook', 1);
  await streamTurn(second.port, { message: userText('fail: quota exceeded', { taskId: turn1.taskId }) }, ALICE);
  // One more refused retry: FAILED, queued as its turn ended, has had its chance to overtake it.
  await receiver.waitFor('/hook', receiver.at('/hook').length + 1);
  refusing = false;

  await receiver.waitFor('/hook', answered.filter(([, status]) => status === 503).length + 2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  // INPUT_REQUIRED alone until it got through, then FAILED, once; nothing dropped as stale.
  const taken = answered.filter(([, status]) => status === 200).map(([state]) => state);
  expect(taken).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_FAILED']);
  expect(answered.slice(0, -2).every(([state, status]) => state === 'TASK_STATE_INPUT_REQUIRED' && status === 503)).toBe(true);
  expect(logged(DROPPED)).toBe(false);
  const task = await second.port.getTask({ id: turn1.taskId }, ALICE);
  expect(task.status.state).toBe('TASK_STATE_FAILED');
}

describe('a retry keeps its place: the next turn’s end waits for it, and the receiver’s last word is FAILED', () => {
  it('local-file queue', async () => {
    const { logger, logged } = capturedLog();
    const h = await startHarness(suite.env(), {}, { subdir: `stale-${Math.random().toString(36).slice(2)}`, queue, logger });
    replicas.closeAfter(h);
    const receiver = await replicas.receiver();
    await scenario(h, h, receiver, logged);
  });

  it('redis-streams queue, two replicas', async () => {
    const { logger, logged } = capturedLog();
    const settings = replicas.settings();
    const a = await replicas.replica(settings, { queue, logger });
    const b = await replicas.replica(settings, { queue, logger });
    const receiver = await replicas.receiver();
    await scenario(a, b, receiver, logged);
  });
});
