import { LRUCache } from 'lru-cache';
import { settlesWithin } from '../settles-within.js';
import { isActiveState, type ListTasksRequest, type ListTasksResponse, type Task, type TaskState } from '../model/index.js';

/** Agent GetTasks one list waits on at most; more tasks last seen running than this are listed as last seen. */
export const MAX_ASKED_PER_LIST = 50;
/** Of those, asked at once. */
const ASKED_AT_ONCE = 8;
/** A task the agent was asked about is not asked again this soon: an agent that forgot it would be asked at every list. */
const ASKED_AGAIN_AFTER_MS = 2_000;
/**
 * How long one list waits on the agent's answers in all. Each GetTask is bounded only by the upstream's
 * call bound (minutes), so an agent that hangs would hold a list for 50/8 of that; past this the list
 * answers with what the registry holds.
 */
export const ASKING_BOUND_MS = 2_500;

const ACTIVE_STATES: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

export interface StaleTasks {
  /** The list as `list` answers it, once the agent was asked about the tasks it shows as running that nobody watches. */
  listFresh(
    request: ListTasksRequest,
    list: (request: ListTasksRequest) => Promise<ListTasksResponse>,
    ask: (task: Task) => Promise<unknown>,
  ): Promise<ListTasksResponse>;
}

/**
 * Tasks the registry last saw running whose turns nobody watches any more (answered with
 * `returnImmediately`, a caller that left mid-stream) end at the agent unseen. Before a list answers, the
 * agent is asked about those it would show (`ask` records its answer), and when the list is filtered by a
 * state a running task cannot be in, about the caller's tasks last seen running too: a finished task must
 * not be missing from "my completed tasks". `watched`: a stream of this process follows the task.
 */
export function createStaleTasks(watched: (taskId: string) => boolean, askingBoundMs = ASKING_BOUND_MS): StaleTasks {
  const asked = new LRUCache<string, true>({ max: 10_000, ttl: ASKED_AGAIN_AFTER_MS, ttlAutopurge: false });
  const unwatched = (tasks: readonly Task[]) =>
    tasks.filter((task) => isActiveState(task.status.state) && !watched(task.id) && !asked.has(task.id)).slice(0, MAX_ASKED_PER_LIST);

  /**
   * Asks about `tasks`, ASKED_AT_ONCE at a time, for at most `askingBoundMs`. Answers that come later
   * are still recorded by `ask`, only not waited for; tasks not asked by then are left for the next list.
   */
  async function askAbout(tasks: readonly Task[], ask: (task: Task) => Promise<unknown>): Promise<void> {
    const queue = [...tasks];
    for (const task of queue) asked.set(task.id, true);
    const worker = async (): Promise<void> => {
      for (let task = queue.shift(); task; task = queue.shift()) await askQuietly(ask, task);
    };
    const answered = Promise.all(Array.from({ length: Math.min(ASKED_AT_ONCE, queue.length) }, worker));
    if (await settlesWithin(answered, askingBoundMs)) return;
    // Never asked: the next list may ask about them, not only after ASKED_AGAIN_AFTER_MS.
    for (const task of queue.splice(0)) asked.delete(task.id);
  }

  return {
    async listFresh(asked, list, ask) {
      const request = withoutUnspecifiedStatus(asked);
      if (request.status && !isActiveState(request.status)) {
        const running = await Promise.all(ACTIVE_STATES.map((status) => list(lastSeen(request, status))));
        await askAbout(unwatched(running.flatMap((page) => page.tasks)), ask);
        return list(request);
      }
      const page = await list(request);
      const stale = unwatched(page.tasks);
      if (stale.length === 0) return page;
      await askAbout(stale, ask);
      return list(request);
    },
  };
}

/** `ask`, whose failure (thrown or rejected) only leaves the task as last seen: nothing of it reaches the list. */
async function askQuietly(ask: (task: Task) => Promise<unknown>, task: Task): Promise<void> {
  try {
    await ask(task);
  } catch {
    // The agent could not say: the task is listed as last seen.
  }
}

/** The caller's most recent tasks last seen in `status`, in the request's tenant and context, without their contents. */
const lastSeen = (request: ListTasksRequest, status: TaskState): ListTasksRequest => {
  const seen: ListTasksRequest = { status, pageSize: MAX_ASKED_PER_LIST, historyLength: 0 };
  if (request.tenant) seen.tenant = request.tenant;
  if (request.contextId) seen.contextId = request.contextId;
  return seen;
};

/**
 * TASK_STATE_UNSPECIFIED is proto3's zero value, the same as no status filter (what a gRPC caller's unset
 * field is, and what an agent answers for it): not a filter that matches no task.
 */
function withoutUnspecifiedStatus(request: ListTasksRequest): ListTasksRequest {
  if (request.status !== 'TASK_STATE_UNSPECIFIED') return request;
  const { status: _unset, ...unfiltered } = request;
  return unfiltered;
}
