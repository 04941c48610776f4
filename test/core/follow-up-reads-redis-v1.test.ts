/**
 * What a 1.0 caller's follow-up (a message naming the context's paused task) asks the Redis registry of its task before
 * its stream opens, each a round trip to a Redis that is remote in production. The core's check for a repeat of the
 * message (repeated-messages.ts, the outermost decorator, not made for the 0.2.5 facade) reads the task, with its scope,
 * once the task's queued writes are done; the scope check (task-scope.ts) and admission build on that read rather than
 * read the task again. The caller is shown the same stream. Against a real Redis.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisContextLanes } from '../../src/core/context-lanes-redis.js';
import { createGateway } from '../../src/core/gateway.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import { A2AError, withFields, type StreamResponse } from '../../src/model/index.js';
import { collect } from '../support/collect.js';
import { ctxOf, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { deleteRedisKeys, REDIS_URL, requireRedis } from '../support/redis.js';
import { rejection } from '../support/rejection.js';

beforeAll(requireRedis);

// As a 1.0 surface calls the core: the core answers a repeat of the message itself (repeated-messages.ts).
const ALICE = withFields(ctxOf('jsonrpc:alice'), { surface: 'jsonrpc' as const });
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
  const prefix = `a2a-bridge-test:follow-up-reads-v1:${randomUUID()}:`;
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
  const taskKey = `${prefix}t:t-1`;
  /** Each read of the task's hash by the client (its writes and the latest task's read run in scripts), by its fields. */
  const reads = () => sent.filter(([name, key]) => name === 'hmget' && key === taskKey).map(([, , ...fields]) => fields.join(' '));
  return { gateway, sent, reads };
}

// iac-code's turns: a new task's stream opens with its Task, a follow-up's with a status update, each ends waiting for input.
const iacCodeTurns = () =>
  stubUpstream({
    async *sendStreamingMessage(request) {
      const { taskId } = request.message;
      if (!taskId) yield taskFrame('t-1', 'c-1', [request.message]);
      else yield statusFrame(taskId, 'c-1', 'TASK_STATE_WORKING');
      yield statusFrame('t-1', 'c-1', 'TASK_STATE_INPUT_REQUIRED', taskId ? 'Which zone?' : 'Which region?');
    },
  });

describe("a 1.0 follow-up's reads of its task in the Redis registry", () => {
  it('reads the task with its scope once; its stream opens with the task as recorded, the follow-up last', async () => {
    const { gateway, sent, reads } = await gatewayCounted(iacCodeTurns());
    await collect(gateway.sendStreamingMessage({ message: userMessage({ text: 'make vpc', contextId: 'c-1' }) }, ALICE));
    await gateway.settled('t-1');

    sent.length = 0;
    const followUp = userMessage({ text: 'north', contextId: 'c-1', taskId: 't-1' });
    const events: StreamResponse[] = await collect(gateway.sendStreamingMessage({ message: followUp }, ALICE));

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
    // Its one read of the task's hash: the task with its scope, once its writes were done (repeated-messages.ts),
    // which the scope check (task-scope.ts) and admission build on.
    expect(reads()).toEqual(['d o n']);
  });

  it("the caller's own task named under another tenant is not found, read once", async () => {
    const { gateway, sent, reads } = await gatewayCounted(iacCodeTurns());
    await collect(gateway.sendStreamingMessage({ message: userMessage({ text: 'make vpc', contextId: 'c-1' }) }, ALICE));
    await gateway.settled('t-1');

    sent.length = 0;
    const followUp = userMessage({ text: 'north', contextId: 'c-1', taskId: 't-1' });
    const refused = await rejection(collect(gateway.sendStreamingMessage({ message: followUp, tenant: 'acme' }, ALICE)));
    // Refused by the scope check on the read handed to it, the message's tenant not the task's.
    expect(refused).toEqual(A2AError.taskNotFound('t-1'));
    expect(reads()).toEqual(['d o n']);
  });
});
