/** The watcher on its own: what becomes a job, in which order, and that the stream never waits for the queue. */
import { describe, expect, it } from 'vitest';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { loadMappingProfile } from '../../src/mappings/index.js';
import type { StreamResponse, TaskState } from '../../src/model/index.js';
import { createMemoryConfigStore } from '../../src/push/config-store/memory.js';
import { resolveNotificationHeaders } from '../../src/push/payload.js';
import type { PushJob } from '../../src/push/queue/types.js';
import { createMemoryNotifiedEvents, type NotifiedEvents } from '../../src/push/notified-events.js';
import { createKeyRing } from '../../src/push/secrets.js';
import { stableEventId } from '../../src/push/event-id.js';
import { createPushWatcher } from '../../src/push/watch.js';
import { createTurnVerdict } from '../../src/core/turn-verdict.js';

const status = (state: TaskState, text?: string): StreamResponse => ({
  statusUpdate: {
    taskId: 'T',
    contextId: 'C',
    status: { state, ...(text ? { message: { messageId: 'm', role: 'ROLE_AGENT' as const, parts: [{ text }] } } : {}) },
  },
});

function setup(events: 'terminal' | 'all' = 'terminal', notified: NotifiedEvents = createMemoryNotifiedEvents()) {
  const store = createMemoryConfigStore({
    keyRing: createKeyRing([], { generateIfEmpty: {} }),
    maxConfigsPerTask: 10,
    allowPrivate: true,
  });
  const jobs: PushJob[] = [];
  let release: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  const queue = {
    /** The next enqueue fails, as a full disk or a lost Redis would make it. */
    failNext: false,
    async enqueue(job: PushJob) {
      await gate;
      if (queue.failNext) {
        queue.failNext = false;
        throw new Error('the queue is out of reach');
      }
      jobs.push(job);
    },
    /** Holds every enqueue until the returned function is called. */
    hold() {
      gate = new Promise((resolve) => (release = resolve));
      return () => release();
    },
  };
  const registry = createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 0, historyLimit: 10 });
  const watcher = createPushWatcher({
    store,
    queue,
    registry,
    // No gateway in front: nothing queues registry writes, so there is nothing to wait for.
    settled: async () => undefined,
    profile: loadMappingProfile('a2a-0.2.5'),
    events,
    logger: { info() {}, warn() {}, error() {} },
    notified,
  });
  return { store, queue, jobs, watcher, registry };
}

async function* source(events: StreamResponse[]): AsyncGenerator<StreamResponse> {
  for (const event of events) yield event;
}

async function pass(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

const turn: StreamResponse[] = [
  { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } },
  status('TASK_STATE_WORKING'),
  status('TASK_STATE_WORKING', 'a'),
  status('TASK_STATE_WORKING', 'b'),
  status('TASK_STATE_INPUT_REQUIRED'),
];

describe('push watcher', () => {
  it('passes the stream through while the queue is stuck, then queues in order', async () => {
    const { store, queue, jobs, watcher } = setup('all');
    await store.create('', 'T', { url: 'http://127.0.0.1:9/hook' });
    const release = queue.hold();
    expect(await pass(watcher.watchStream(source(turn)))).toEqual(turn);
    expect(jobs).toHaveLength(0);
    release();
    await watcher.drain();
    expect(jobs.map((job) => JSON.parse(job.payload))).toEqual(turn);
    expect(jobs.map((job) => job.headers['A2A-Event-Id'])).toEqual(jobs.map((job) => job.eventId));
    expect(new Set(jobs.map((job) => job.eventId)).size).toBe(turn.length);
  });

  it('terminal: one job per change into a terminal or interrupted state, one per blocking turn; nothing after a terminal state', async () => {
    const { store, jobs, watcher } = setup();
    await store.create('', 'T', { url: 'http://127.0.0.1:9/hook' });
    await pass(watcher.watchStream(source([...turn, status('TASK_STATE_INPUT_REQUIRED')])));
    await watcher.observeAnswer({ task: { id: 'T', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    await pass(watcher.watchStream(source([status('TASK_STATE_WORKING'), status('TASK_STATE_FAILED'), status('TASK_STATE_WORKING')])));
    await watcher.observeAnswer({ task: { id: 'T', status: { state: 'TASK_STATE_FAILED' } } });
    await watcher.drain();
    type Payload = { statusUpdate?: { status: { state: string } }; task?: { status: { state: string } } };
    const states = jobs.map((job) => {
      const payload = JSON.parse(job.payload) as Payload;
      return (payload.statusUpdate ?? payload.task)?.status.state;
    });
    // The blocking answer is a second turn ending in input-required: its working states were never seen.
    expect(states).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_FAILED']);
  });

  it("terminal: an unstamped turn end on its send's stream is pushed as the Task of that turn (the send's message the caller's last)", async () => {
    const ended = async (turnMessageId?: string): Promise<unknown> => {
      const { store, jobs, watcher, registry } = setup();
      await store.create('', 'T', { url: 'http://127.0.0.1:9/hook' });
      const events: StreamResponse[] = [
        {
          task: {
            id: 'T',
            contextId: 'C',
            status: { state: 'TASK_STATE_SUBMITTED' },
            history: [{ messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'vpc' }] }],
          },
        },
        status('TASK_STATE_WORKING', 'Made the VPC.'),
        status('TASK_STATE_INPUT_REQUIRED'),
      ];
      for (const event of events) await registry.apply(event, { owner: '', upstream: 'agent' });
      await pass(watcher.watchStream(source(events), undefined, turnMessageId));
      await watcher.drain();
      return JSON.parse(jobs.at(-1)!.payload);
    };
    expect(await ended('u1')).toMatchObject({ task: { id: 'T', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    expect(JSON.stringify(await ended('u1'))).toContain('Made the VPC.');
    // A stream not of a send (a subscription): not known to be that turn's, the update as it is.
    expect(await ended()).toEqual(status('TASK_STATE_INPUT_REQUIRED'));
  });

  it('stores an inline config before the first event is looked at, under the caller', async () => {
    const { store, jobs, watcher } = setup('all');
    const inline = { owner: 'basic:alice', version: '1.0' as const, config: { url: 'http://127.0.0.1:9/inline', token: 't' } };
    await pass(watcher.watchStream(source(turn), inline));
    await watcher.drain();
    expect(jobs).toHaveLength(turn.length);
    expect(jobs.every((job) => job.owner === 'basic:alice' && job.configId === 'T' && job.contentType === 'application/a2a+json')).toBe(true);
    // The job carries no secret; the dispatcher resolves it from the store.
    expect(JSON.stringify(jobs)).not.toContain('"t"');
    expect(await resolveNotificationHeaders(store)(jobs[0]!)).toEqual({ 'X-A2A-Notification-Token': 't', 'A2A-Notification-Token': 't' });
    expect(await resolveNotificationHeaders(store)({ ...jobs[0]!, url: 'http://127.0.0.1:9/elsewhere' })).toBeNull();
  });

  describe("a turn its sender may yet drop (CallContext.turnVerdict: the facade's refused attempts, gone-task.ts)", () => {
    const inline = { owner: 'basic:alice', version: '1.0' as const, config: { url: 'http://127.0.0.1:9/inline' } };

    /** Reads the stream's first `read` events, as the sender does before it decides, then the verdict, then the rest. */
    async function decided(taken: boolean | undefined, read = 2) {
      const { store, jobs, watcher } = setup('all');
      const verdict = createTurnVerdict();
      const stream = watcher.watchStream(source(turn), inline, 'm1', verdict)[Symbol.asyncIterator]();
      for (let at = 0; at < read; at += 1) await stream.next();
      await watcher.drain();
      const before = { jobs: jobs.length, configs: (await store.forTask('T')).length };
      if (taken !== undefined) await verdict.decide(taken);
      const stored = (await store.forTask('T')).length;
      if (taken === false) await stream.return?.();
      else while (!(await stream.next()).done);
      await watcher.drain();
      return { before, stored, payloads: jobs.map((job) => JSON.parse(job.payload) as unknown), configs: await store.forTask('T') };
    }

    it('nothing of it is notified nor its config stored before the verdict; dropped, never', async () => {
      const dropped = await decided(false);
      expect(dropped.before).toEqual({ jobs: 0, configs: 0 });
      expect(dropped.payloads).toEqual([]);
      expect(dropped.configs).toEqual([]);
    });

    it('taken: its config is stored before the verdict is answered, then every event is notified, in order', async () => {
      const taken = await decided(true);
      expect(taken.before).toEqual({ jobs: 0, configs: 0 });
      expect(taken.stored).toBe(1);
      expect(taken.payloads).toEqual(turn);
    });

    it('a stream that ends undecided (its caller left) is taken as gone on', async () => {
      expect((await decided(undefined)).payloads).toEqual(turn);
    });
  });

  it('watches only the first of two streams carrying the same task', async () => {
    const { store, jobs, watcher } = setup('all');
    await store.create('', 'T', { url: 'http://127.0.0.1:9/hook' });
    const first = watcher.watchStream(source(turn))[Symbol.asyncIterator]();
    await first.next();
    await pass(watcher.watchStream(source([status('TASK_STATE_WORKING', 'dup')])));
    while (!(await first.next()).done) {
      // drain the first stream
    }
    await watcher.drain();
    expect(jobs.map((job) => JSON.parse(job.payload))).toEqual(turn);
  });

  describe('stable event ids', () => {
    const T1 = '2026-11-29T11:25:08.861112Z';
    const T2 = '2026-11-29T11:26:00.000001Z';
    const stamped = (state: TaskState, timestamp: string): StreamResponse => ({
      statusUpdate: { taskId: 'T', contextId: 'C', status: { state, timestamp } },
    });
    const stampedTurn = (end: string): StreamResponse[] => [
      { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_SUBMITTED' } } },
      status('TASK_STATE_WORKING', 'a'),
      stamped('TASK_STATE_INPUT_REQUIRED', end),
    ];

    /** Two watchers on one config store and one set of claims: two replicas sharing Redis. */
    async function replicas(notified: NotifiedEvents) {
      const a = setup('terminal', notified);
      const b = setup('terminal', notified);
      for (const side of [a, b]) await side.store.create('basic:alice', 'T', { id: 'hook', url: 'http://127.0.0.1:9/hook' });
      return { a, b, jobs: () => [...a.jobs, ...b.jobs] };
    }

    it('a change two replicas see is queued once, under an id both derive', async () => {
      const { a, b, jobs } = await replicas(createMemoryNotifiedEvents());
      await Promise.all([pass(a.watcher.watchStream(source(stampedTurn(T1)))), pass(b.watcher.watchStream(source(stampedTurn(T1))))]);
      await Promise.all([a.watcher.drain(), b.watcher.drain()]);
      expect(jobs()).toHaveLength(1);
      expect(jobs()[0]!.eventId).toBe(stableEventId('T', stamped('TASK_STATE_INPUT_REQUIRED', T1)));
      expect(jobs()[0]!.headers['A2A-Event-Id']).toBe(jobs()[0]!.eventId);

      // The next turn ends in the same state at another time: a new change, queued once again.
      await Promise.all([pass(a.watcher.watchStream(source(stampedTurn(T2)))), pass(b.watcher.watchStream(source(stampedTurn(T2))))]);
      await Promise.all([a.watcher.drain(), b.watcher.drain()]);
      expect(jobs()).toHaveLength(2);
      expect(jobs()[1]!.eventId).not.toBe(jobs()[0]!.eventId);
    });

    it('without a status timestamp each replica queues its own, under ids of its own', async () => {
      const { a, b, jobs } = await replicas(createMemoryNotifiedEvents());
      await Promise.all([pass(a.watcher.watchStream(source(turn))), pass(b.watcher.watchStream(source(turn)))]);
      await Promise.all([a.watcher.drain(), b.watcher.drain()]);
      expect(jobs()).toHaveLength(2);
      expect(jobs()[0]!.eventId).not.toBe(jobs()[1]!.eventId);
      expect(jobs().every((job) => /^T:[0-9a-f]{12}-\d+$/.test(job.eventId))).toBe(true);
    });

    it("a follow's read of the task after the stream notified its end is not queued again; another config still gets it", async () => {
      const { store, jobs, watcher } = setup();
      await store.create('basic:alice', 'T', { id: 'hook', url: 'http://127.0.0.1:9/hook' });
      await pass(watcher.watchStream(source(stampedTurn(T1))));
      await watcher.drain();
      // A blocking answer or a follow's GetTask reporting the same status: a whole turn for the watcher, the same change for the receiver.
      await watcher.observeAnswer({ task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: T1 } } });
      await store.create('basic:bob', 'T', { id: 'hook', url: 'http://127.0.0.1:9/bob' });
      watcher.observeTask({ id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED', timestamp: T2 } });
      await watcher.drain();
      expect(jobs.map((job) => [job.owner, JSON.parse(job.payload)])).toEqual([
        ['basic:alice', stamped('TASK_STATE_INPUT_REQUIRED', T1)],
        ['basic:alice', { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED', timestamp: T2 } } }],
        ['basic:bob', { task: { id: 'T', contextId: 'C', status: { state: 'TASK_STATE_COMPLETED', timestamp: T2 } } }],
      ]);
    });

    it('a claim whose job could not be queued is given back: the next replica that sees the change queues it', async () => {
      const { a, b, jobs } = await replicas(createMemoryNotifiedEvents());
      a.queue.failNext = true;
      await pass(a.watcher.watchStream(source(stampedTurn(T1))));
      await a.watcher.drain();
      expect(jobs()).toEqual([]);
      await pass(b.watcher.watchStream(source(stampedTurn(T1))));
      await b.watcher.drain();
      expect(jobs().map((job) => job.eventId)).toEqual([stableEventId('T', stamped('TASK_STATE_INPUT_REQUIRED', T1))]);
    });

    it('queues anyway when the claim cannot be made', async () => {
      const failing: NotifiedEvents = {
        claim: () => Promise.reject(new Error('Redis is gone')),
        release: async () => undefined,
        close: async () => undefined,
      };
      const { a, b, jobs } = await replicas(failing);
      await Promise.all([pass(a.watcher.watchStream(source(stampedTurn(T1)))), pass(b.watcher.watchStream(source(stampedTurn(T1))))]);
      await Promise.all([a.watcher.drain(), b.watcher.drain()]);
      expect(jobs()).toHaveLength(2);
      // Both under the same id: the receiver can tell it is one change.
      expect(jobs()[0]!.eventId).toBe(jobs()[1]!.eventId);
    });
  });
});
