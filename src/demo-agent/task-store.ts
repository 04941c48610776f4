import {
  withFields,
  withHistoryLength,
  A2AError,
  TASK_STATES,
  type ListTasksRequest,
  type ListTasksResponse,
  type StreamResponse,
  type Task,
  type TaskState,
} from '../model/index.js';
import type { EventChannel } from './channel.js';

/** A turn in progress on a task: what CancelTask aborts and where SubscribeToTask attaches. */
export interface ActiveTurn {
  readonly abort: AbortController;
  /** iac-code's per-context session id, echoed in every statusUpdate. */
  readonly sessionId: string;
  readonly subscribers: Set<EventChannel<StreamResponse>>;
}

export interface StoredTask {
  task: Task;
  turn: ActiveTurn | undefined;
}

const DEFAULT_PAGE_SIZE = 50;

/** The proto enum number, which iac-code puts in "is in terminal state: N". */
export const taskStateNumber = (state: TaskState): number => TASK_STATES.indexOf(state);

/**
 * In-memory tasks, capped: when full, the oldest task without a running turn is dropped, so a
 * long-lived demo agent cannot grow without bound.
 */
export class TaskStore {
  private readonly tasks = new Map<string, StoredTask>();

  constructor(private readonly maxTasks: number) {}

  get size(): number {
    return this.tasks.size;
  }

  get(id: string): StoredTask | undefined {
    return this.tasks.get(id);
  }

  add(task: Task): StoredTask {
    const stored: StoredTask = { task, turn: undefined };
    this.tasks.set(task.id, stored);
    this.evictFinished();
    return stored;
  }

  active(): StoredTask[] {
    return [...this.tasks.values()].filter((stored) => stored.turn !== undefined);
  }

  /** ListTasks as iac-code answers it (surface §3.3). */
  list(request: ListTasksRequest): ListTasksResponse {
    const after = request.statusTimestampAfter === undefined ? undefined : parseTimestamp(request.statusTimestampAfter);
    const matching = [...this.tasks.values()]
      .map((stored) => stored.task)
      .filter((task) => request.contextId === undefined || task.contextId === request.contextId)
      .filter((task) => request.status === undefined || task.status.state === request.status)
      .filter((task) => after === undefined || (task.status.timestamp !== undefined && Date.parse(task.status.timestamp) >= after))
      .sort(newestFirst);

    const pageSize = request.pageSize ?? DEFAULT_PAGE_SIZE;
    const start = request.pageToken ? pageStart(matching, request.pageToken) : 0;
    const page = matching.slice(start, start + pageSize);
    const next = matching[start + pageSize];
    return {
      tasks: page.map((task) => {
        const view = withHistoryLength(snapshot(task), request.historyLength);
        if (!request.includeArtifacts) delete view.artifacts;
        return view;
      }),
      nextPageToken: next ? Buffer.from(next.id, 'utf8').toString('base64') : '',
      pageSize,
      totalSize: matching.length,
    };
  }

  private evictFinished(): void {
    if (this.tasks.size <= this.maxTasks) return;
    for (const [id, stored] of this.tasks) {
      if (this.tasks.size <= this.maxTasks) return;
      if (stored.turn === undefined) this.tasks.delete(id);
    }
  }
}

/** A copy the caller may keep or serialise while the turn goes on mutating the stored task. */
export function snapshot(task: Task): Task {
  return structuredClone(task);
}

/**
 * How a2a-sdk's TaskManager folds an event into the stored task: a new status pushes the previous
 * status message into history and its metadata replaces top-level keys; artifacts accumulate.
 * The initial `{task}` event is ignored, as iac-code's persistence makes the SDK do (surface §5.4).
 */
export function applyEvent(task: Task, event: StreamResponse): void {
  if ('statusUpdate' in event) {
    const previous = task.status.message;
    if (previous) (task.history ??= []).push(previous);
    task.status = event.statusUpdate.status;
    if (event.statusUpdate.metadata) task.metadata = withFields(task.metadata, event.statusUpdate.metadata);
    return;
  }
  if ('artifactUpdate' in event) {
    const { artifact, append } = event.artifactUpdate;
    const artifacts = (task.artifacts ??= []);
    const index = artifacts.findIndex((existing) => existing.artifactId === artifact.artifactId);
    const existing = artifacts[index];
    if (existing === undefined) artifacts.push(artifact);
    else artifacts[index] = append ? withFields(existing, { parts: [...existing.parts, ...artifact.parts] }) : artifact;
  }
}

/** Timestamped first, newest first (our timestamps share one fixed format, so strings compare), then id desc. */
function newestFirst(a: Task, b: Task): number {
  const ta = a.status.timestamp;
  const tb = b.status.timestamp;
  if (ta !== tb) {
    if (ta === undefined) return 1;
    if (tb === undefined) return -1;
    return ta < tb ? 1 : -1;
  }
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function pageStart(tasks: Task[], token: string): number {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token) || token.length % 4 !== 0) {
    throw A2AError.invalidParams('Token is not a valid base64-encoded cursor.');
  }
  const id = Buffer.from(token, 'base64').toString('utf8');
  const index = tasks.findIndex((task) => task.id === id);
  if (index < 0) throw A2AError.invalidParams(`Invalid page token: ${token}`);
  return index;
}

function parseTimestamp(value: string): number {
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw A2AError.invalidParams(`Invalid statusTimestampAfter: ${value}`);
  return parsed;
}
