/**
 * What a follow-up (a message naming the context's paused task) asks the Redis registry of its task before and as
 * its stream opens, each a round trip to a Redis that is remote in production: its scope and its record, once, in one
 * read (task-scope.ts, which hands the record to admission.ts). The record admission reads once the context's lane is
 * held (the context's latest task) is the one the stream opens with (stream-opening.ts), and the task admission read
 * as the caller's is not scoped again at its first event (recording.ts). The caller is shown the same stream. Against
 * a real Redis.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import { createGateway } from '../../src/core/gateway.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { withFields, type StreamResponse } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { ctxOf, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';

beforeAll(requireRedis);

// As the 0.2.5 facade calls the core: a repeat of its message was answered before (surfaces/v025/repeated-turn.ts), and
// the core's own check for one (repeated-messages.ts, a read of the task more for any other caller) is not made.
const ALICE = withFields(ctxOf('v025:alice'), { surface: 'v025' as const });
const prefixes: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(async () => {
  await Promise.all(prefixes.map(deleteRedisKeys));
});

/** A gateway on Redis whose registry's connection tells each command it sends (its name and arguments). */
async function gatewayCounted(upstream: ReturnType<typeof stubUpstream>) {
  const prefix = `a2a-bridge-test:follow-up-reads:${randomUUID()}:`;
  prefixes.push(prefix);
  const redis = new Redis(REDIS_URL);
  await redis.ping();
  const sent: string[][] = [];
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, ...rest) => {
    sent.push([command.name, ...command.args.map(String)]);
    return send(command, ...rest);
  };
  const registry = createRedisTaskRegistry({ redis, prefix, idleTtlMs: 60_000, historyLimit: 100 });
  const lanes = createRedisContextLanes({ url: REDIS_URL, prefix, leaseMs: 10_000 });
  closers.push(async () => {
    await lanes.close();
    await registry.close();
    await redis.quit();
  });
  const gateway = createGateway(upstream, { registry, lanes, upstreamName: 'up' });
  return { gateway, sent, taskKey: (taskId: string) => `${prefix}t:${taskId}` };
}

describe("a follow-up's reads of its task in the Redis registry", () => {
  it('reads its scope and its record in one read; its stream opens with the task as recorded, the follow-up last', async () => {
    // iac-code's turns: a new task's stream opens with its Task, a follow-up's with a status update, each ends waiting for input.
    const upstream = stubUpstream({
      async *sendStreamingMessage(request) {
        const { taskId } = request.message;
        if (!taskId) yield taskFrame('t-1', 'c-1', [request.message]);
        else yield statusFrame(taskId, 'c-1', 'TASK_STATE_WORKING');
        yield statusFrame('t-1', 'c-1', 'TASK_STATE_INPUT_REQUIRED', taskId ? 'Which zone?' : 'Which region?');
      },
    });
    const { gateway, sent, taskKey } = await gatewayCounted(upstream);
    const opening = userMessage({ text: 'make vpc', contextId: 'c-1' });
    await collect(gateway.sendStreamingMessage({ message: opening }, ALICE));
    await gateway.settled('t-1');

    sent.length = 0;
    const followUp = userMessage({ text: 'north', contextId: 'c-1', taskId: 't-1' });
    const events: StreamResponse[] = await collect(gateway.sendStreamingMessage({ message: followUp }, ALICE));

    // What its caller is shown: the task as recorded (the opening message, the question), the follow-up last.
    const first = events[0]!;
    expect('task' in first && first.task.history?.map((message) => message.parts[0])).toEqual([
      { text: 'make vpc' },
      { text: 'Which region?' },
      { text: 'north' },
    ]);
    expect(events.slice(1).map((event) => 'statusUpdate' in event && event.statusUpdate.status.state)).toEqual([
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
    ]);
    // Each read of the task's hash by the client (its writes and the latest task's read run in scripts): its scope,
    // checked by the outermost decorator, with its record as the message entered.
    const reads = sent.filter(([name, key]) => name === 'hmget' && key === taskKey('t-1')).map(([, , ...fields]) => fields.join(' '));
    expect(reads).toEqual(['d o n']);
  });
});
