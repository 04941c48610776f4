/**
 * The agent is asked about tasks last seen running before a list answers (stale-tasks.ts), for a bounded
 * time in all: a slow or hanging agent must not hold ListTasks for many of its call bounds.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ASKING_BOUND_MS, createStaleTasks } from '../../src/core/stale-tasks.js';
import type { ListTasksRequest, ListTasksResponse, Task } from '../../src/model/index.js';

const running = (count: number): Task[] =>
  Array.from({ length: count }, (_, i) => ({ id: `t${i}`, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } }));

/** A registry's list of `tasks`, counting its calls. */
function listOf(tasks: Task[]) {
  return vi.fn(async (request: ListTasksRequest): Promise<ListTasksResponse> => ({
    tasks,
    nextPageToken: '',
    pageSize: request.pageSize ?? 50,
    totalSize: tasks.length,
  }));
}

const never = () => new Promise<never>(() => undefined);
const nobodyWatches = () => false;

/** Whether `promise` has settled, once the microtasks queued so far have run. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return settled;
}

describe('stale tasks: the asking is bounded in all', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an agent that never answers: the list answers once the bound passes, with the tasks as last seen', async () => {
    const tasks = running(3);
    const list = listOf(tasks);
    const listed = createStaleTasks(nobodyWatches, 100).listFresh({}, list, never);
    await vi.advanceTimersByTimeAsync(99);
    expect(await hasSettled(listed)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await hasSettled(listed)).toBe(true);
    expect((await listed).tasks).toEqual(tasks);
    expect(list).toHaveBeenCalledTimes(2);
  });

  it('is ASKING_BOUND_MS by default, a few seconds', async () => {
    expect(ASKING_BOUND_MS).toBeGreaterThanOrEqual(1_000);
    expect(ASKING_BOUND_MS).toBeLessThanOrEqual(3_000);
    const listed = createStaleTasks(nobodyWatches).listFresh({}, listOf(running(1)), never);
    await vi.advanceTimersByTimeAsync(ASKING_BOUND_MS - 1);
    expect(await hasSettled(listed)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await hasSettled(listed)).toBe(true);
  });

  it('asks no more once the bound passed; the tasks left unasked are asked at the next list', async () => {
    const asked: string[] = [];
    const ask = vi.fn((task: Task) => {
      asked.push(task.id);
      return never();
    });
    const stale = createStaleTasks(nobodyWatches, 100);
    const list = listOf(running(20));
    const first = stale.listFresh({}, list, ask);
    await vi.advanceTimersByTimeAsync(100);
    expect(await hasSettled(first)).toBe(true);
    // Eight at once, all hanging: nobody asks about the other twelve for this list.
    expect(asked).toEqual(running(8).map((task) => task.id));
    const second = stale.listFresh({}, list, ask);
    await vi.advanceTimersByTimeAsync(100);
    expect(await hasSettled(second)).toBe(true);
    expect(asked.slice(8)).toEqual(
      running(16)
        .slice(8)
        .map((task) => task.id),
    );
  });

  it('answers that come late, or fail late, are still recorded and never surface as errors', async () => {
    const recorded: string[] = [];
    const ask = async (task: Task) => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (task.id === 't1') throw new Error('agent went away');
      recorded.push(task.id);
    };
    const listed = createStaleTasks(nobodyWatches, 100).listFresh({}, listOf(running(2)), ask);
    await vi.advanceTimersByTimeAsync(100);
    expect(await hasSettled(listed)).toBe(true);
    expect(recorded).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    expect(recorded).toEqual(['t0']);
  });

  it('an agent that answers in time is waited for, not the bound, and its timer is gone', async () => {
    const list = listOf(running(2));
    const listed = createStaleTasks(nobodyWatches, 100).listFresh({}, list, async () => undefined);
    expect(await hasSettled(listed)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
