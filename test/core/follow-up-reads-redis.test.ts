/**
 * What a follow-up (a message naming the context's paused task) asks the Redis registry of its task before and as
 * its stream opens, each a round trip to a Redis that is remote in production. Against a real Redis, the caller shown
 * the same stream:
 * - through the 0.2.5 facade: its scope and its record, once, in one read (task-scope.ts, which hands the record to
 *   admission.ts); the record admission reads once the context's lane is held (the context's latest task) is the one
 *   the stream opens with (stream-opening.ts), and the task admission read as the caller's is not scoped again at its
 *   first event (recording.ts);
 * - for a 1.0 caller, whose repeats the core answers (repeated-messages.ts, the outermost decorator): that check reads
 *   the task with its scope once the task's queued writes are done, and the scope check and admission build on it.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/core/agent-port.js';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import { createGateway, type Gateway } from '../../src/core/gateway.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { A2AError, withFields, type StreamResponse } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { ctxOf, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

beforeAll(requireRedis);

// As the 0.2.5 facade calls the core: a repeat of its message was answered before (surfaces/v025/turn/repeated-turn.ts), and
// the core's own check for one (repeated-messages.ts) is not made.
const FACADE_ALICE = withFields(ctxOf('v025:alice'), { surface: 'v025' as const });
// As a 1.0 surface calls the core: the core answers a repeat of the message itself.
const V1_ALICE = withFields(ctxOf('jsonrpc:alice'), { surface: 'jsonrpc' as const });
const prefixes: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
afterAll(async () => {
  await Promise.all(prefixes.map(deleteRedisKeys));
});

/**
 * A gateway on Redis in front of iac-code's turns (a new task's stream opens with its Task, a follow-up's with a
 * status update, each ends waiting for input), its conversation opened by `ctx`, and each read of task t-1's hash its
 * registry's connection sends from then on, by its fields (the task's writes and the latest task's read run in scripts).
 */
async function openedConversation(ctx: CallContext): Promise<{ gateway: Gateway; reads: () => string[] }> {
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
  const upstream = stubUpstream({
    async *sendStreamingMessage(request) {
      const { taskId } = request.message;
      if (!taskId) yield taskFrame('t-1', 'c-1', [request.message]);
      else yield statusFrame(taskId, 'c-1', 'TASK_STATE_WORKING');
      yield statusFrame('t-1', 'c-1', 'TASK_STATE_INPUT_REQUIRED', taskId ? 'Which zone?' : 'Which region?');
    },
  });
  const gateway = createGateway(upstream, { registry, lanes, upstreamName: 'up' });
  await collect(gateway.sendStreamingMessage({ message: userMessage({ text: 'make vpc', contextId: 'c-1' }) }, ctx));
  await gateway.settled('t-1');
  sent.length = 0;
  const taskKey = `${prefix}t:t-1`;
  const reads = () => sent.filter(([name, key]) => name === 'hmget' && key === taskKey).map(([, , ...fields]) => fields.join(' '));
  return { gateway, reads };
}

const followUp = () => userMessage({ text: 'north', contextId: 'c-1', taskId: 't-1' });

/** What the follow-up's caller is shown: the task as recorded (the opening message, the question), the follow-up last. */
function expectShownAsRecorded(events: StreamResponse[]): void {
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
}

describe("a follow-up's reads of its task in the Redis registry", () => {
  it('through the facade: its scope and its record in one read; its stream opens with the task as recorded, the follow-up last', async () => {
    const { gateway, reads } = await openedConversation(FACADE_ALICE);
    expectShownAsRecorded(await collect(gateway.sendStreamingMessage({ message: followUp() }, FACADE_ALICE)));
    // Its scope, checked by the outermost decorator, with its record as the message entered.
    expect(reads()).toEqual(['d o n']);
  });

  it('from a 1.0 caller: the task with its scope read once, by the check for a repeat, which the scope check builds on', async () => {
    const { gateway, reads } = await openedConversation(V1_ALICE);
    expectShownAsRecorded(await collect(gateway.sendStreamingMessage({ message: followUp() }, V1_ALICE)));
    expect(reads()).toEqual(['d o n']);
  });

  it('from a 1.0 caller, its own task named under another tenant: not found, read once', async () => {
    const { gateway, reads } = await openedConversation(V1_ALICE);
    const refused = await rejection(collect(gateway.sendStreamingMessage({ message: followUp(), tenant: 'acme' }, V1_ALICE)));
    // Refused by the scope check on the read handed to it, the message's tenant not the task's.
    expect(refused).toEqual(A2AError.taskNotFound('t-1'));
    expect(reads()).toEqual(['d o n']);
  });
});
