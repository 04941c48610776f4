import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { eventTaskState, type StreamResponse, type TaskState } from '../model/index.js';
import type { Settling } from './agent-port.js';
import type { TaskMeta, TaskRegistry } from './task-registry/types.js';

/**
 * The core's registry writes: a helper the recording decorator (recording.ts) and the readers around
 * it (settled) share, not a port wrapper. Writes of one task run one at a time on a promise chain, so
 * they keep their order and a Redis round trip never delays the event that caused it; write errors
 * are logged, never thrown into a stream. A write that fails (a Redis blip: a command past
 * `redis-command-timeout-ms`, a failover, a refusal) is tried again (RETRY_DELAYS_MS) before the task's
 * later writes, which wait behind it: a turn's last state lost to a blip would leave its task recorded
 * running for good. Each write carries an id of its own (`writeId`), which the store keeps with the task, so a
 * write that timed out on the client but was applied by Redis all the same is not applied again by its retry.
 *
 * A stream is folded in memory and persisted only at its persist points, so a turn of a hundred text
 * chunks costs a handful of writes, not a hundred. The rule:
 *
 * - a streamed event is added to the task's unpersisted fold (`fold`); the fold is written, in ONE
 *   registry write (`applyAll`), at the end of the event loop's turn in which a Task snapshot or a status
 *   whose state differs from the last one written for the task arrived (every state change, terminal or
 *   interrupted included; the changes of one turn, like a fast agent's whole reply read from one chunk,
 *   make one write), or at once when it holds MAX_UNWRITTEN events (a long turn of chunks in one state
 *   keeps little in memory);
 * - an answer (SendMessage, GetTask, CancelTask) is written at once, after what is folded (`record`);
 * - the end of the stream, whether it finished, failed or was aborted, writes what is left (`end`);
 * - so does every read in this process that must see the latest fold: `settled` writes the fold
 *   first, then waits (GetTask, CancelTask, SubscribeToTask, follow-ups, push snapshots, push
 *   config methods), and `settledAll` does so for every task (ListTasks).
 *
 * Other replicas read the registry directly, so they see a running stream as of its last state change
 * (one turn of this process's event loop later at most), and a new task before its first event is relayed
 * (recording.ts waits for that event's write: `foldWritten`).
 */
export interface TaskWriter extends Settling {
  /** A streamed event: folded now, written at the next persist point. */
  fold(event: StreamResponse, meta: TaskMeta, taskId: string): void;
  /**
   * A streamed event folded, and the fold written at once, not at the end of the turn; resolves when it is done (or
   * failed once: its retries go on behind). For the one event a stream waits to relay until it is written
   * (recording.ts: a new task's first).
   */
  foldWritten(event: StreamResponse, meta: TaskMeta, taskId: string): Promise<void>;
  /** Writes the event (after anything folded before it); resolves when it is done (or failed once: its retries go on behind). */
  record(event: StreamResponse, meta: TaskMeta, taskId: string): Promise<void>;
  /**
   * The stream carrying the task ended: writes what is folded and forgets the task's last state; resolves once that
   * write was tried (the stream's end, and its context lane, wait for no retry; a read of the task does: `settled`).
   */
  end(taskId: string): Promise<void>;
  /** Writes every task's fold and waits for every queued write. */
  settledAll(): Promise<void>;
}

interface TaskFold {
  meta: TaskMeta;
  /** Events folded since the last write. */
  pending: StreamResponse[];
  /** State of the last event that triggered a write; a status in another state writes again. */
  writtenState?: TaskState;
  /** The task's last queued write, retries included. */
  tail: Promise<void>;
  /** The task's last queued write tried once. */
  tried: Promise<void>;
  /** A stream is folding the task: keep the entry (and `writtenState`) until it ends. */
  streaming: boolean;
  /** A persist point came: the fold is written at the end of this turn of the event loop. */
  due?: NodeJS.Immediate;
}

/** Events a fold holds at most before it is written without a state change. */
export const MAX_UNWRITTEN = 256;

/** The waits before each retry of a failed write: some 4 s in all, what a Redis blip or failover lasts. */
export const RETRY_DELAYS_MS = [250, 1_000, 2_500];

/** What a write given up held, for the log: how many events of which kinds, and the state it would have left (never their content). */
function lostWrite(batch: readonly StreamResponse[]): { events: number; kinds: string[]; state?: TaskState } {
  const kinds = [...new Set(batch.map((event) => Object.keys(event)[0] ?? ''))];
  const state = batch.map(eventTaskState).findLast((found) => found !== undefined);
  return { events: batch.length, kinds, ...(state ? { state } : {}) };
}

/** `retryDelaysMs`: the waits before each retry of a failed write (RETRY_DELAYS_MS; shorter in tests). */
export function createTaskWriter(registry: TaskRegistry, logger?: Logger, retryDelaysMs: readonly number[] = RETRY_DELAYS_MS): TaskWriter {
  const folds = new Map<string, TaskFold>();

  function entry(taskId: string, meta: TaskMeta): TaskFold {
    let found = folds.get(taskId);
    if (!found) folds.set(taskId, (found = { meta, pending: [], tail: Promise.resolve(), tried: Promise.resolve(), streaming: false }));
    return found;
  }

  // Unique to this writer, so a write's id names it among every replica's writes of the task.
  const writerTag = randomBytes(6).toString('base64url');
  let writes = 0;

  /** The batch tried again after it failed with `error`, until it is written or the last retry failed. */
  async function retried(taskId: string, batch: readonly StreamResponse[], apply: () => Promise<unknown>, error: unknown): Promise<void> {
    logger?.warn({ err: error, taskId }, 'task registry write failed; trying again');
    for (const delay of retryDelaysMs) {
      // Not holding a process that is stopping: its writes are over with its connections.
      await sleep(delay, undefined, { ref: false });
      try {
        await apply();
        return;
      } catch (again) {
        error = again;
      }
    }
    logger?.error({ err: error, taskId, lost: lostWrite(batch), attempts: retryDelaysMs.length + 1 }, 'task registry write lost');
  }

  /**
   * Queues one write of everything folded for the task; resolves once it was tried: a failed one is tried again
   * meanwhile, and the task's later writes wait behind it (`fold.tail`, what `queued` waits for).
   */
  function write(taskId: string, fold: TaskFold): Promise<void> {
    if (fold.due) {
      clearImmediate(fold.due);
      fold.due = undefined;
    }
    if (fold.pending.length > 0) {
      const batch = fold.pending;
      fold.pending = [];
      const { meta } = fold;
      const writeId = `${writerTag}.${(writes++).toString(36)}`;
      const apply = () => registry.applyAll(batch, meta, writeId);
      const first = fold.tail.then(apply).then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      fold.tried = first.then(() => undefined);
      fold.tail = first.then((failed) => failed && retried(taskId, batch, apply, failed.error));
    }
    const tail = fold.tail;
    // A task no stream folds is forgotten once its last write is done.
    void tail.then(() => {
      if (folds.get(taskId) === fold && !fold.streaming && fold.pending.length === 0 && fold.tail === tail) folds.delete(taskId);
    });
    return fold.tried;
  }

  /** Writes what is folded for the task; resolves once every write queued for it is done (or given up). */
  function queued(taskId: string, fold: TaskFold): Promise<void> {
    void write(taskId, fold);
    return fold.tail;
  }

  function settled(taskId: string): Promise<void> {
    const fold = folds.get(taskId);
    if (!fold) return Promise.resolve();
    // A write already due at the end of this turn of the event loop is waited for, not hastened: the turn's
    // changes stay one write (a lane naming its running task waits for the write that resumed it: turn-naming.ts).
    // Every write takes all that is folded, so once the due one went, so did everything folded before this call.
    if (fold.due) return new Promise<void>((resolve) => setImmediate(resolve)).then(() => fold.tail);
    return queued(taskId, fold);
  }

  /** Adds a streamed event to its task's fold, its write due at the next persist point. */
  function folded(event: StreamResponse, meta: TaskMeta, taskId: string): TaskFold {
    const fold = entry(taskId, meta);
    fold.streaming = true;
    fold.pending.push(event);
    const state = eventTaskState(event);
    const changes = 'task' in event || (state !== undefined && state !== fold.writtenState);
    if (changes) fold.writtenState = state;
    if (fold.pending.length >= MAX_UNWRITTEN) void write(taskId, fold);
    else if (changes) fold.due ??= setImmediate(() => void write(taskId, fold));
    return fold;
  }

  return {
    fold(event, meta, taskId) {
      folded(event, meta, taskId);
    },

    // Not settled(), which waits for a write due at the end of the turn: the stream would go on from inside a
    // setImmediate callback, and the facade's SSE writer acknowledges a frame written there a loop turn later than
    // one written as its event came (sse-pipe.ts), after a Bailian user who read it and hung up at once is seen
    // gone: noted as having read none of the turn (unwatched-turns.ts).
    foldWritten(event, meta, taskId) {
      return write(taskId, folded(event, meta, taskId));
    },

    record(event, meta, taskId) {
      const fold = entry(taskId, meta);
      fold.pending.push(event);
      return write(taskId, fold);
    },

    end(taskId) {
      const fold = folds.get(taskId);
      if (!fold) return Promise.resolve();
      fold.streaming = false;
      fold.writtenState = undefined;
      return write(taskId, fold);
    },

    settled,

    async settledAll() {
      await Promise.all([...folds.keys()].map(settled));
    },
  };
}
