/**
 * The task follower (src/push/follow.ts) over a scripted port and the real push watcher, for the
 * follow*.test.ts files: task T of context C, its caller, the port's script, a journal kept in a Map.
 */
import type { CallContext } from '../../src/core/agent-port.js';
import { createMemoryTaskRegistry } from '../../src/core/task-registry/memory.js';
import { loadMappingProfile } from '../../src/mappings/index.js';
import type { StreamResponse, Task, TaskState } from '../../src/model/index.js';
import { createMemoryConfigStore } from '../../src/push/config-store/memory.js';
import { createTaskFollower } from '../../src/push/follow.js';
import type { FollowEntry, FollowJournal } from '../../src/push/follow-journal.js';
import type { PushJob, PushLogger } from '../../src/push/queue/types.js';
import { createMemoryNotifiedEvents } from '../../src/push/notified-events.js';
import { createKeyRing } from '../../src/push/secrets.js';
import { createPushWatcher } from '../../src/push/watch.js';

export const task = (state: TaskState, text?: string): Task => ({
  id: 'T',
  contextId: 'C',
  status: { state, ...(text ? { message: { messageId: `m-${state}`, role: 'ROLE_AGENT' as const, parts: [{ text }] } } : {}) },
});
export const status = (state: TaskState, text?: string): StreamResponse => ({
  statusUpdate: { taskId: 'T', contextId: 'C', status: task(state, text).status },
});
export const caller: CallContext = { principal: 'basic:alice', signal: new AbortController().signal, surface: 'jsonrpc' };

/** A subscription as the script says: its events, then an end, an error, or no end until aborted. */
type Subscription = { events: StreamResponse[]; then: 'end' | 'hang' | Error } | Error;

function scriptedPort(subscriptions: Subscription[], snapshots: Array<Task | Error>) {
  const calls: string[] = [];
  const contexts: CallContext[] = [];
  /** What each call asked, in order: the task's id and tenant. */
  const requests: Array<{ id: string; tenant?: string }> = [];
  return {
    calls,
    contexts,
    requests,
    port: {
      subscribeToTask(request: { id: string; tenant?: string }, ctx: CallContext): AsyncIterable<StreamResponse> {
        calls.push('subscribe');
        contexts.push(ctx);
        requests.push(request);
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
      async getTask(request: { id: string; tenant?: string }): Promise<Task> {
        calls.push('get');
        requests.push(request);
        const next = snapshots.shift() ?? new Error('no more snapshots scripted');
        if (next instanceof Error) throw next;
        return next;
      },
    },
  };
}

/** A journal kept in a Map, as the file one keeps it across a restart. */
export function mapJournal(initial: FollowEntry[] = []): FollowJournal & { kept: Map<string, FollowEntry> } {
  const kept = new Map(initial.map((entry) => [entry.taskId, entry]));
  return {
    kept,
    add: async (entry) => void kept.set(entry.taskId, entry),
    remove: async (taskId) => void kept.delete(taskId),
    entries: async () => [...kept.values()],
  };
}

export async function setup(
  subscriptions: Subscription[],
  snapshots: Array<Task | Error> = [],
  options: { timeoutMs?: number; maxFollowed?: number; journal?: FollowJournal; logger?: PushLogger } = {},
) {
  const store = createMemoryConfigStore({ keyRing: createKeyRing([], { generateIfEmpty: {} }), maxConfigsPerTask: 10, allowPrivate: true });
  await store.create('basic:alice', 'T', { url: 'http://127.0.0.1:9/hook' });
  const jobs: PushJob[] = [];
  const logger = options.logger ?? { info() {}, warn() {}, error() {} };
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

/** `calls`, once it holds `count` calls or after about 2 s. */
export async function waitForCalls(calls: string[], count: number): Promise<string[]> {
  for (let i = 0; i < 400 && calls.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return calls;
}
