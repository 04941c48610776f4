/**
 * ListTasks on the memory registry reads a page's own tasks, not every task of the caller: one key may hold
 * all of `tasks.max-tasks`, and a sort of them all per call held the event loop (every other caller's calls
 * and streams) for seconds. The pages stay those of a plain sort of the caller's live tasks.
 */
import { describe, expect, it, vi } from 'vitest';
import { createMemoryTaskRegistry } from '../../../src/core/task-registry/memory.js';
import { decodePageToken, encodePageToken, sortMember } from '../../../src/core/task-registry/query.js';
import type { ListTasksRequest, Task, TaskState } from '../../../src/model/index.js';
import { ALICE, taskOf } from '../registry-fixtures.js';

const STATES: TaskState[] = ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_INPUT_REQUIRED'];

/** A task whose status is counted each time it is read: each task a listing looks at reads its status. */
function countedTask(task: Task, reads: { count: number }): Task {
  const status = task.status;
  return Object.defineProperty<Task>({ ...task }, 'status', {
    enumerable: true,
    get: () => {
      reads.count++;
      return status;
    },
  });
}

describe('memory ListTasks cost', () => {
  it('reads a handful of tasks for a page of one, of a caller holding 10,000, whatever the filter or page', async () => {
    const registry = createMemoryTaskRegistry({ maxTasks: 20_000, idleTtlMs: 0, historyLimit: 10 });
    const reads = { count: 0 };
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 10_000; i++) {
      const task = taskOf(`t-${i}`, { contextId: 'one-context', state: STATES[i % 2], timestamp: new Date(start + i * 1000).toISOString() });
      await registry.put(countedTask(task, reads), ALICE);
    }
    const pageOf = async (request: ListTasksRequest) => {
      reads.count = 0;
      const page = await registry.list({ pageSize: 1, ...request }, ALICE.owner);
      return { ids: page.tasks.map((task) => task.id), total: page.totalSize, token: page.nextPageToken, reads: reads.count };
    };
    const first = await pageOf({});
    expect(first).toMatchObject({ ids: ['t-9999'], total: 10_000 });
    const after = new Date(start + 9_000 * 1000).toISOString();
    const pages = [
      first,
      await pageOf({ pageToken: first.token }),
      await pageOf({ status: 'TASK_STATE_WORKING' }),
      await pageOf({ contextId: 'one-context' }),
      await pageOf({ statusTimestampAfter: after }),
    ];
    expect(pages.map(({ ids, total }) => ({ ids, total }))).toEqual([
      { ids: ['t-9999'], total: 10_000 },
      { ids: ['t-9998'], total: 10_000 },
      { ids: ['t-9998'], total: 5_000 },
      { ids: ['t-9999'], total: 10_000 },
      { ids: ['t-9999'], total: 999 },
    ]);
    // The page's task and the one that tells there are more, each read a few times on the way out.
    for (const page of pages) expect(page.reads).toBeLessThanOrEqual(10);
  });
});

/** What ListTasks answered when it sorted every live task of the scope per call: the pages to keep. */
function sortedPage(tasks: Task[], request: ListTasksRequest) {
  const pageSize = request.pageSize ?? 50;
  const cursor = decodePageToken(request.pageToken);
  const rows = tasks
    .filter((task) => !request.contextId || task.contextId === request.contextId)
    .filter((task) => !request.status || task.status.state === request.status)
    .map((task) => ({ member: sortMember(task), task }))
    .filter(
      ({ member }) =>
        !request.statusTimestampAfter ||
        member.slice(0, 19) >
          sortMember({ ...taskOf('x'), status: { state: 'TASK_STATE_WORKING', timestamp: request.statusTimestampAfter } }).slice(0, 19),
    )
    .sort((a, b) => (a.member < b.member ? 1 : a.member > b.member ? -1 : 0));
  const start =
    cursor === undefined ? 0 : rows.findIndex((row) => row.member < cursor) < 0 ? rows.length : rows.findIndex((row) => row.member < cursor);
  const page = rows.slice(start, start + pageSize);
  const hasMore = start + pageSize < rows.length;
  return { ids: page.map((row) => row.task.id), token: hasMore ? encodePageToken(page.at(-1)!.member) : '', total: rows.length };
}

describe('memory ListTasks pages', () => {
  it('are those of a sort of the live tasks, through updates, evictions, ties and tasks without a timestamp', async () => {
    let seed = 7;
    const random = (n: number) => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0), (seed >>> 8) % n);
    const registry = createMemoryTaskRegistry({ maxTasks: 600, idleTtlMs: 0, historyLimit: 10 });
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let write = 0; write < 3_000; write++) {
      const id = `t-${random(800)}`;
      const stamp = random(10) === 0 ? undefined : new Date(base + random(300) * 1000).toISOString();
      const task = taskOf(id, { contextId: `c-${random(5)}`, state: STATES[random(STATES.length)], ...(stamp ? { timestamp: stamp } : {}) });
      await registry.put(task, random(4) === 0 ? { ...ALICE, tenant: 'acme' } : ALICE);
    }
    const ids = Array.from({ length: 800 }, (_, i) => `t-${i}`);
    const scopes = await Promise.all(ids.map((id) => registry.scopeOf(id)));
    const live = await Promise.all(ids.filter((_, i) => scopes[i]?.tenant === '').map((id) => registry.get(id, ALICE.owner)));
    const tasks = live.filter((task): task is Task => task !== undefined);
    expect(tasks.length).toBeGreaterThan(100);
    const requests: ListTasksRequest[] = [
      { pageSize: 7 },
      { pageSize: 50, status: 'TASK_STATE_COMPLETED' },
      { pageSize: 3, contextId: 'c-2' },
      { pageSize: 4, contextId: 'c-1', status: 'TASK_STATE_WORKING' },
      { pageSize: 9, statusTimestampAfter: new Date(base + 150_000).toISOString() },
      { pageSize: 5, status: 'TASK_STATE_FAILED', statusTimestampAfter: new Date(base + 100_000).toISOString() },
    ];
    for (const request of requests) {
      let token = '';
      do {
        const paged = { ...request, ...(token ? { pageToken: token } : {}) };
        const page = await registry.list(paged, ALICE.owner);
        const expected = sortedPage(tasks, paged);
        expect({ ids: page.tasks.map((task) => task.id), token: page.nextPageToken, total: page.totalSize }).toEqual(expected);
        token = page.nextPageToken;
      } while (token);
    }
  });
});

describe('memory ListTasks past the idle TTL', () => {
  it('counts only live tasks, however few of them the page reads, a task rewritten as it was kept', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const registry = createMemoryTaskRegistry({ maxTasks: 100, idleTtlMs: 1_000, historyLimit: 10 });
      const evicted: string[] = [];
      registry.onEvicted((taskId) => evicted.push(taskId));
      const refreshed = taskOf('refreshed', { timestamp: '2026-01-01T00:00:09Z' });
      await registry.put(refreshed, ALICE);
      await registry.put(taskOf('stale', { timestamp: '2026-01-01T00:00:01Z', contextId: 'ctx-2' }), ALICE);
      vi.advanceTimersByTime(600);
      // Written again as it was (a stream's chunk that leaves the status as it is): its idle time starts over.
      await registry.put(refreshed, ALICE);
      await registry.put(taskOf('later', { timestamp: '2026-01-01T00:00:08Z' }), ALICE);
      vi.advanceTimersByTime(600);
      const page = await registry.list({ pageSize: 1 }, ALICE.owner);
      expect({ ids: page.tasks.map((task) => task.id), total: page.totalSize }).toEqual({ ids: ['refreshed'], total: 2 });
      expect(evicted).toEqual(['stale']);
      expect((await registry.list({ pageSize: 1, pageToken: page.nextPageToken }, ALICE.owner)).tasks.map((task) => task.id)).toEqual(['later']);
    } finally {
      vi.useRealTimers();
    }
  });
});
