import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/core/gateway.js';
import { MAX_UNWRITTEN } from '../../src/core/task-writer.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { createRedisTaskRegistry } from '../../src/core/task-registry/redis.js';
import type { TaskRegistry } from '../../src/core/task-registry/types.js';
import { collect } from '../support/collect.js';
import { ctxOf, Feed, statusFrame, stubUpstream, taskFrame, userMessage } from '../support/gateway-stubs.js';
import { REDIS_URL, requireRedis } from '../support/redis.js';
import { waitUntil } from '../support/wait-until.js';

const ALICE = ctxOf('basic:alice');
const prefix = `a2a-bridge-test:${randomUUID()}:`;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(requireRedis);

afterAll(async () => {
  for (const close of closers) await close();
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** The registry with its writes counted (every call that stores a task). */
function counted(registry: TaskRegistry): { registry: TaskRegistry; writes: () => number } {
  let writes = 0;
  const count =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      writes++;
      return write(...args);
    };
  return {
    registry: { ...registry, apply: count(registry.apply), applyAll: count(registry.applyAll), put: count(registry.put) },
    writes: () => writes,
  };
}

const stores: Array<[string, () => TaskRegistry]> = [
  ['memory', () => createMemoryTaskRegistry({ maxTasks: 1000, idleTtlMs: 60_000, historyLimit: 1000 })],
  [
    'redis',
    () => {
      const registry = createRedisTaskRegistry({ url: REDIS_URL, prefix: `${prefix}${randomUUID()}:`, idleTtlMs: 60_000, historyLimit: 1000 });
      closers.push(() => registry.close());
      return registry;
    },
  ],
];

const chunkTexts = (count: number) => Array.from({ length: count }, (_, i) => `chunk-${i}`);

describe.each(stores)('task writer (%s registry): a stream is written at its state changes and its end', (_name, create) => {
  it('writes a 100-chunk stream a bounded number of times, not once per event, and loses none of it', async () => {
    const { registry, writes } = counted(create());
    const feed = new Feed().push(taskFrame('T', 'C'));
    for (const text of chunkTexts(100)) feed.push(statusFrame('T', 'C', 'TASK_STATE_WORKING', text));
    feed.push(statusFrame('T', 'C', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    const gateway = createGateway(stubUpstream({ sendStreamingMessage: () => feed.stream() }), { registry, upstreamName: 'up' });
    expect(await collect(gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C' }) }, ALICE))).toHaveLength(102);

    // States: SUBMITTED (the Task), WORKING, INPUT_REQUIRED; before, the core wrote all 102 events one by one.
    const stateChanges = 3;
    expect(writes()).toBeLessThanOrEqual(stateChanges + 1);
    const stored = await registry.get('T', ALICE.principal);
    expect(stored?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // The caller's message first (the stub's opening Task holds none: the record puts it there, as a blocking answer's).
    expect(stored?.history?.map((m) => m.parts[0]?.text)).toEqual(['make vpc', ...chunkTexts(100)]);
  });

  it('a long turn in one state is written every MAX_UNWRITTEN events, so it never piles up in memory, and loses none of it', async () => {
    const { registry, writes } = counted(create());
    const chunks = chunkTexts(3 * MAX_UNWRITTEN + 10);
    const feed = new Feed().push(taskFrame('L', 'CL'), ...chunks.map((text) => statusFrame('L', 'CL', 'TASK_STATE_WORKING', text)));
    const gateway = createGateway(stubUpstream({ sendStreamingMessage: () => feed.stream() }), { registry, upstreamName: 'up' });
    const iterator = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'CL' }) }, ALICE)[Symbol.asyncIterator]();
    for (let i = 0; i <= chunks.length; i++) await iterator.next();
    // Without a read and before the stream ends, the registry catches up to the last full fold. The Task, new,
    // was written alone before it was relayed (recording.ts); the first WORKING came in the same turn of the event
    // loop as the chunks, so its state change made no write of its own: then three folds of MAX_UNWRITTEN statuses
    // (chunk-767 is the status, the caller's message and 0-766 the history), and the chunks after them still folded.
    let stored = await registry.get('L', ALICE.principal);
    for (let i = 0; i < 200 && stored?.history?.length !== 3 * MAX_UNWRITTEN; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      stored = await registry.get('L', ALICE.principal);
    }
    expect(stored?.history).toHaveLength(3 * MAX_UNWRITTEN);
    expect(writes()).toBe(1 + 3);
    feed.push(statusFrame('L', 'CL', 'TASK_STATE_INPUT_REQUIRED'));
    feed.end();
    while (!(await iterator.next()).done);
    stored = await registry.get('L', ALICE.principal);
    expect(stored?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(stored?.history?.map((m) => m.parts[0]?.text)).toEqual(['make vpc', ...chunks]);
  });

  it('writes a new task before its id is relayed, a state change without any read once the turn of the event loop ends, the changes of one turn at once', async () => {
    const { registry, writes } = counted(create());
    const feed = new Feed().push(
      taskFrame('S', 'CS'),
      statusFrame('S', 'CS', 'TASK_STATE_WORKING', 'first'),
      statusFrame('S', 'CS', 'TASK_STATE_INPUT_REQUIRED', 'which region?'),
    );
    const gateway = createGateway(stubUpstream({ sendStreamingMessage: () => feed.stream() }), { registry, upstreamName: 'up' });
    const iterator = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'CS' }) }, ALICE)[Symbol.asyncIterator]();
    await iterator.next();
    // What another replica reads: the registry itself, with no settled() of this process before it. The caller
    // holds the task's id now and may name it there.
    expect((await registry.get('S', ALICE.principal))?.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(writes()).toBe(1);
    await iterator.next();
    await iterator.next();
    await waitUntil(async () => (await registry.get('S', ALICE.principal))?.status.state === 'TASK_STATE_INPUT_REQUIRED');
    expect(writes()).toBe(2);
    feed.push(statusFrame('S', 'CS', 'TASK_STATE_WORKING', 'resumed'));
    await iterator.next();
    await waitUntil(async () => (await registry.get('S', ALICE.principal))?.status.state === 'TASK_STATE_WORKING');
    expect(writes()).toBe(3);
    feed.end();
    while (!(await iterator.next()).done);
  });

  it('lets a read in this process see the latest fold while the stream is open (settled writes it first)', async () => {
    const { registry, writes } = counted(create());
    const feed = new Feed().push(taskFrame('T2', 'C2'), ...chunkTexts(5).map((text) => statusFrame('T2', 'C2', 'TASK_STATE_WORKING', text)));
    const gateway = createGateway(stubUpstream({ sendStreamingMessage: () => feed.stream() }), { registry, upstreamName: 'up' });
    const iterator = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'C2' }) }, ALICE)[Symbol.asyncIterator]();
    for (let i = 0; i < 6; i++) await iterator.next();
    await gateway.settled('T2');
    // The last chunk is the status message; the four before it went into the history, after the caller's message.
    const stored = await registry.get('T2', ALICE.principal);
    expect(stored?.history?.map((m) => m.parts[0]?.text)).toEqual(['make vpc', ...chunkTexts(4)]);
    expect(stored?.status.message?.parts[0]?.text).toBe('chunk-4');
    expect((await gateway.listTasks({}, ALICE)).tasks.map((task) => task.id)).toEqual(['T2']);
    expect(writes()).toBeLessThanOrEqual(3);
    await iterator.return?.();
  });

  it('writes the final fold of a stream the caller aborts, and of one that fails', async () => {
    const { registry } = counted(create());
    const aborted = new Feed().push(taskFrame('A', 'CA'), ...chunkTexts(3).map((text) => statusFrame('A', 'CA', 'TASK_STATE_WORKING', text)));
    const failed = new Feed().push(taskFrame('F', 'CF'), ...chunkTexts(3).map((text) => statusFrame('F', 'CF', 'TASK_STATE_WORKING', text)));
    const feeds = [aborted, failed];
    const gateway = createGateway(stubUpstream({ sendStreamingMessage: () => feeds.shift()!.stream() }), { registry, upstreamName: 'up' });

    const first = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'CA' }) }, ALICE)[Symbol.asyncIterator]();
    for (let i = 0; i < 4; i++) await first.next();
    await first.return?.();
    expect((await registry.get('A', ALICE.principal))?.status.message?.parts[0]?.text).toBe('chunk-2');

    const second = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'CF' }) }, ALICE)[Symbol.asyncIterator]();
    for (let i = 0; i < 4; i++) await second.next();
    failed.fail(new Error('upstream went away'));
    await expect(second.next()).rejects.toThrow('upstream went away');
    expect((await registry.get('F', ALICE.principal))?.status.message?.parts[0]?.text).toBe('chunk-2');
  });
});

describe('task writer: the first event of a new task', () => {
  // What waits for the write is the event alone, not the end of the turn of the event loop: a stream that went on
  // from inside a setImmediate callback has its frames written there, and the facade's SSE writer acknowledges such
  // a frame a loop turn late, after a Bailian user who read it and hung up at once is seen gone (unwatched-turns.ts).
  it('is relayed once its write is done, within the turn of the event loop it came in (memory registry)', async () => {
    const { registry, writes } = counted(createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 60_000, historyLimit: 100 }));
    const feed = new Feed().push(taskFrame('N', 'CN'));
    const gateway = createGateway(stubUpstream({ sendStreamingMessage: () => feed.stream() }), { registry, upstreamName: 'up' });
    const iterator = gateway.sendStreamingMessage({ message: userMessage({ contextId: 'CN' }) }, ALICE)[Symbol.asyncIterator]();
    const endOfTurn = new Promise<string>((resolve) => setImmediate(() => resolve('the end of the turn came first')));
    expect(await Promise.race([iterator.next().then(() => 'relayed'), endOfTurn])).toBe('relayed');
    expect(writes()).toBe(1);
    feed.end();
    while (!(await iterator.next()).done);
  });
});
