/**
 * What the outage tests share: a push queue on the test's own Redis under names of its own, and a
 * turn of a task with a push config answered while that Redis is down.
 */
import { ctx, Receiver, streamTurn, userText, type Harness } from './harness.js';

const ALICE = ctx('basic:alice', 'jsonrpc');

/** A `redis-streams` push queue whose stream, retry key, dead stream and group are named after `base`. */
export function streamsQueueNamed(base: string): Record<string, unknown> {
  return {
    'push-queue': 'redis-streams',
    'push-stream': `${base}:push`,
    'push-retry-key': `${base}:push:retry`,
    'push-dead-stream': `${base}:push:dead`,
    'push-consumer-group': `${base}-group`,
  };
}

/**
 * A task of `h` with a push config at a receiver of its own (closed with what the test opened), then
 * `redis` killed and a second turn of the task answered without it.
 */
export async function turnWhileRedisIsDown(h: Harness, redis: { stop(): Promise<void> }, open: Array<{ close(): Promise<void> }>) {
  const receiver = await new Receiver().up();
  open.push({ close: () => receiver.down() });
  const first = await streamTurn(h.port, { message: userText('make a vpc') }, ALICE);
  await h.port.createTaskPushNotificationConfig({ taskId: first.taskId, id: 'v1', url: `${receiver.url}/v1` }, ALICE);
  await redis.stop();
  const second = await streamTurn(h.port, { message: userText('and a vswitch', { taskId: first.taskId }) }, ALICE);
  return { receiver, first, second };
}
