/**
 * Following a task the gateway answered while it still ran: which upstream calls a follow makes, and
 * which notifications come of them, over a scripted port and the real watcher.
 */
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/core/agent-port.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { loadMappingProfile } from '../../src/mappings/index.js';
import { A2AError, type StreamResponse, type Task, type TaskState } from '../../src/model/index.js';
import { createMemoryConfigStore } from '../../src/push/config-store/memory.js';
import { createTaskFollower } from '../../src/push/follow.js';
import type { FollowEntry, FollowJournal } from '../../src/push/follow-journal.js';
import type { PushJob } from '../../src/push/queue/types.js';
import { createMemoryNotifiedEvents } from '../../src/push/notified-events.js';
import { createKeyRing } from '../../src/push/secrets.js';
import { createPushWatcher } from '../../src/push/watch.js';

const task = (state: TaskState, text?: string): Task => ({
  id: 'T',
  contextId: 'C',
  status: { state, ...(text ? { message: { messageId: `m-${state}`, role: 'ROLE_AGENT' as const, parts: [{ text }] } } : {}) },
});
const status = (state: TaskState, text?: string): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: task(state, text).status },
});
const caller: CallContext = { principal: 'basic:alice', signal: new AbortController().signal, surface: 'jsonrpc' };

/** A subscription as the script says: its events, then an end, an error, or no end until aborted. */
type Subscription = { events: StreamResponse[]; then: 'end' | 'hang' | Error } | Error;

function scriptedPort(subscriptions: Subscription[], snapshots: Array<Task | Error>) {
  const calls: string[] = [];
  const contexts: CallContext[] = [];
  return {
    calls,
    contexts,
    port: {
      subscribeToTask(_request: { id: string }, ctx: CallContext): AsyncIterable<StreamResponse> {
        calls.push('subscribe');
        contexts.push(ctx);
        const script = subscriptions.shift() ?? new Error('no more subscriptions scripted');
        return (async function* () {
          if (script instanceof Error) throw script;
          yield* script.events;
          if (script.then instanceof Error) throw script.then;
          if (script.then === 'hang') {
            if (!ctx.signal.aborted) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
            throw new Error('aborted');
          }
        })();
      },
      async getTask(): Promise<Task> {
        calls.push('get');
        const next = snapshots.shift() ?? new Error('no more snapshots scripted');
        if (next instanceof Error) throw next;
        return next;
      },
    },
  };
}

/** A journal kept in a Map, as the file one keeps it across a restart. */
function mapJournal(initial: FollowEntry[] = []): FollowJournal & { kept: Map<string, FollowEntry> } {
  const kept = new Map(initial.map((entry) => [entry.taskId, entry]));
  return {
    kept,
    add: async (entry) => void kept.set(entry.taskId, entry),
    remove: async (taskId) => void kept.delete(taskId),
    entries: async () => [...kept.values()],
  };
}

async function setup(
  subscriptions: Subscription[],
  snapshots: Array<Task | Error> = [],
  options: { timeoutMs?: number; maxFollowed?: number; journal?: FollowJournal } = {},
) {
  const store = createMemoryConfigStore({ keyRing: createKeyRing([], { generateIfEmpty: {} }), maxConfigsPerTask: 10, allowPrivate: true });
  await store.create('basic:alice', 'T', { url: 'http://127.0.0.1:9/hook' });
  const jobs: PushJob[] = [];
  const logger = { info() {}, warn() {}, error() {} };
  const watcher = createPushWatcher({
    store,
    queue: { enqueue: async (job: PushJob) => void jobs.push(job) },
    registry: createMemoryTaskRegistry({ maxTasks: 10, idleTtlMs: 0, historyLimit: 10 }),
    settled: async () => undefined,
    profile: loadMappingProfile('a2a-0.2.5'),
    events: 'terminal',
    logger,
    notified: createMemoryNotifiedEvents(),
  });
  const scripted = scriptedPort(subscriptions, snapshots);
  const follower = createTaskFollower({
    port: scripted.port,
    watcher,
    timeoutMs: options.timeoutMs ?? 60_000,
    logger,
    retry: { initialDelayMs: 5, maxDelayMs: 20 },
    ...(options.maxFollowed ? { maxFollowed: options.maxFollowed } : {}),
    ...(options.journal ? { journal: options.journal } : {}),
  });
  /** What was queued once every follow ended on its own. */
  const delivered = async () => {
    await follower.idle();
    await watcher.drain();
    return jobs.map((job) => JSON.parse(job.payload) as StreamResponse);
  };
  return { ...scripted, follower, watcher, delivered };
}

describe('following a task answered while it runs', () => {
  it("subscribes once and delivers the turn's end with the agent's words", async () => {
    const { follower, calls, delivered } = await setup([
      {
        events: [
          { task: task('TASK_STATE_WORKING') },
          status('TASK_STATE_WORKING', 'thinking'),
          status('TASK_STATE_COMPLETED', 'Your VPC is ready.'),
        ],
        then: 'end',
      },
    ]);
    follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect(await delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Your VPC is ready.')]);
    expect(calls).toEqual(['subscribe']);
  });

  it('reads the task when the subscription is refused because the turn already ended', async () => {
    const { follower, calls, delivered } = await setup(
      [A2AError.unsupportedOperation('Task T is in a terminal state')],
      [task('TASK_STATE_INPUT_REQUIRED', 'Which region?')],
    );
    follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect(await delivered()).toEqual([{ task: task('TASK_STATE_INPUT_REQUIRED', 'Which region?') }]);
    expect(calls).toEqual(['subscribe', 'get']);
  });

  it('polls an agent that cannot stream until the task is done', async () => {
    const refused = () => A2AError.unsupportedOperation('Streaming is not supported');
    const { follower, calls, delivered } = await setup(
      [refused(), refused(), refused()],
      [task('TASK_STATE_WORKING'), task('TASK_STATE_WORKING'), task('TASK_STATE_FAILED', 'Quota exceeded')],
    );
    follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect(await waitForCalls(calls, 6)).toEqual(['subscribe', 'get', 'subscribe', 'get', 'subscribe', 'get']);
    expect(await delivered()).toEqual([{ task: task('TASK_STATE_FAILED', 'Quota exceeded') }]);
  });

  it('subscribes again after a dropped subscription while the task still runs, and notifies its end once', async () => {
    const { follower, calls, delivered } = await setup(
      [
        { events: [{ task: task('TASK_STATE_WORKING') }], then: new Error('socket hang up') },
        { events: [{ task: task('TASK_STATE_WORKING') }, status('TASK_STATE_COMPLETED', 'Done.')], then: 'end' },
      ],
      [task('TASK_STATE_WORKING')],
    );
    follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    await waitForCalls(calls, 3);
    expect(await delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Done.')]);
    expect(calls).toEqual(['subscribe', 'get', 'subscribe']);
  });

  it('does not follow a turn that has ended, a direct message, a task already followed, or with timeout 0', async () => {
    const ended = await setup([]);
    ended.follower.follow({ task: task('TASK_STATE_INPUT_REQUIRED') }, caller);
    ended.follower.follow({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } }, caller);
    expect(await ended.delivered()).toEqual([]);
    expect(ended.calls).toEqual([]);

    const twice = await setup([{ events: [], then: 'hang' }]);
    twice.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    twice.follower.follow({ task: task('TASK_STATE_WORKING') }, caller);
    await waitForCalls(twice.calls, 1);
    await twice.follower.stop();
    expect(twice.calls).toEqual(['subscribe']);

    const off = await setup([], [], { timeoutMs: 0 });
    off.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect(off.calls).toEqual([]);
  });

  it("follows as the caller's principal, outlives the caller's signal, and ends on stop", async () => {
    const { follower, calls, contexts } = await setup([{ events: [{ task: task('TASK_STATE_WORKING') }], then: 'hang' }]);
    const call = new AbortController();
    follower.follow({ task: task('TASK_STATE_SUBMITTED') }, { ...caller, signal: call.signal });
    call.abort();
    await waitForCalls(calls, 1);
    expect(contexts[0]).toMatchObject({ principal: 'basic:alice', surface: 'jsonrpc' });
    expect(contexts[0]!.signal.aborted).toBe(false);
    await follower.stop();
    expect(contexts[0]!.signal.aborted).toBe(true);
    // After stop, nothing new is followed.
    follower.follow({ task: { ...task('TASK_STATE_SUBMITTED'), id: 'U' } }, caller);
    expect(calls).toEqual(['subscribe']);
  });

  it('gives up at the follow timeout', async () => {
    const { follower, calls, contexts } = await setup([{ events: [], then: 'hang' }], [task('TASK_STATE_WORKING')], { timeoutMs: 50 });
    follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    await waitForCalls(calls, 1);
    await new Promise((resolve) => contexts[0]!.signal.addEventListener('abort', resolve, { once: true }));
    await follower.stop();
    expect(calls).toEqual(['subscribe']);
  });

  it('journals a follow while it runs: gone when the turn ends, kept when the follower stops', async () => {
    const ended = mapJournal();
    const first = await setup([{ events: [status('TASK_STATE_COMPLETED', 'Done.')], then: 'end' }], [], { journal: ended });
    first.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    expect([...ended.kept.keys()]).toEqual(['T']);
    expect(await first.delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Done.')]);
    expect(ended.kept.size).toBe(0);

    const stopped = mapJournal();
    const second = await setup([{ events: [], then: 'hang' }], [], { journal: stopped, timeoutMs: 60_000 });
    second.follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    await waitForCalls(second.calls, 1);
    await second.follower.stop();
    expect(stopped.kept.get('T')).toMatchObject({ taskId: 'T', principal: 'basic:alice', surface: 'jsonrpc' });
  });

  it("resume takes up the journal's follows as their callers, and drops the ones past their time", async () => {
    const journal = mapJournal([
      { taskId: 'T', principal: 'basic:alice', surface: 'v025', until: Date.now() + 60_000 },
      { taskId: 'OLD', principal: 'basic:alice', until: Date.now() - 1 },
    ]);
    const { follower, calls, contexts, delivered } = await setup(
      [A2AError.unsupportedOperation('Task T is in a terminal state')],
      [task('TASK_STATE_INPUT_REQUIRED', 'Which region?')],
      {
        journal,
      },
    );
    await follower.resume();
    expect(await delivered()).toEqual([{ task: task('TASK_STATE_INPUT_REQUIRED', 'Which region?') }]);
    expect(calls).toEqual(['subscribe', 'get']);
    expect(contexts[0]).toMatchObject({ principal: 'basic:alice', surface: 'v025' });
    expect(journal.kept.size).toBe(0);
  });

  it('with a shared journal, claims the follows of replicas gone, at resume and every claimEveryMs, as many as there is room for', async () => {
    const limits: number[] = [];
    const orphans: FollowEntry[][] = [[], [{ taskId: 'T', principal: 'basic:alice', surface: 'v025', until: Date.now() + 60_000 }]];
    const journal: FollowJournal = {
      ...mapJournal(),
      claimEveryMs: 10,
      async claimOrphans(limit) {
        limits.push(limit);
        return orphans.shift() ?? [];
      },
    };
    const { follower, calls, contexts, delivered } = await setup([{ events: [status('TASK_STATE_COMPLETED', 'Adopted.')], then: 'end' }], [], {
      journal,
      maxFollowed: 3,
    });
    await follower.resume();
    // The claim at resume found nothing; a later round found T, and it is followed as its caller.
    expect(limits).toEqual([3]);
    expect(calls).toEqual([]);
    await waitForCalls(calls, 1);
    expect(contexts[0]).toMatchObject({ principal: 'basic:alice', surface: 'v025' });
    expect(await delivered()).toEqual([status('TASK_STATE_COMPLETED', 'Adopted.')]);
    await follower.stop();
    const claimsAtStop = limits.length;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(limits.length).toBe(claimsAtStop);
    expect(limits.every((limit) => limit >= 2 && limit <= 3)).toBe(true);
  });

  it('with a shared journal, lets go of a follow another replica took over, but not of one whose entry is still being written', async () => {
    const base = mapJournal();
    let finishAdd = (): void => undefined;
    const journal: FollowJournal = {
      ...base,
      claimEveryMs: 10,
      claimOrphans: async () => [],
      held: async () => new Set(base.kept.keys()),
      // U's entry is slow to reach the journal: missing from it until then is not a take-over.
      add: (entry) =>
        entry.taskId === 'U'
          ? new Promise<void>((resolve) => {
              finishAdd = () => {
                base.kept.set(entry.taskId, entry);
                resolve();
              };
            })
          : base.add(entry),
    };
    const { follower, calls, contexts } = await setup(
      [
        { events: [], then: 'hang' },
        { events: [], then: 'hang' },
      ],
      [],
      { journal },
    );
    await follower.resume();
    follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    follower.follow({ task: { ...task('TASK_STATE_SUBMITTED'), id: 'U' } }, caller);
    await waitForCalls(calls, 2);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(contexts.map((ctx) => ctx.signal.aborted)).toEqual([false, false]);

    // Another replica claimed T: it left this replica's journal, and the follow here ends.
    base.kept.delete('T');
    for (let i = 0; i < 200 && !contexts[0]!.signal.aborted; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(contexts[0]!.signal.aborted).toBe(true);
    expect(contexts[1]!.signal.aborted).toBe(false);
    expect(calls).toEqual(['subscribe', 'subscribe']);

    finishAdd();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(contexts[1]!.signal.aborted).toBe(false);
    await follower.stop();
    expect([...base.kept.keys()]).toEqual(['U']);
  });

  it('follows at most maxFollowed tasks at once', async () => {
    const { follower, calls } = await setup([{ events: [], then: 'hang' }], [], { maxFollowed: 1 });
    follower.follow({ task: task('TASK_STATE_SUBMITTED') }, caller);
    follower.follow({ task: { ...task('TASK_STATE_SUBMITTED'), id: 'U' } }, caller);
    await waitForCalls(calls, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await follower.stop();
    expect(calls).toEqual(['subscribe']);
  });
});

async function waitForCalls(calls: string[], count: number): Promise<string[]> {
  for (let i = 0; i < 400 && calls.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return calls;
}
