import type { Logger } from 'pino';
import { eventTaskState, type StreamResponse, type TaskState } from '../model/index.js';
import type { Settling } from './agent-port.js';
import type { TaskMeta, TaskRegistry } from './task-registry/types.js';

/**
 * The core's registry writes: a helper the recording decorator (recording.ts) and the readers around
 * it (settled) share, not a port wrapper. Writes of one task run one at a time on a promise chain, so
 * they keep their order and a Redis round trip never delays the event that caused it; write errors
 * are logged, never thrown into a stream.
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
   * failed). For the one event a stream waits to relay until it is written (recording.ts: a new task's first).
   */
  foldWritten(event: StreamResponse, meta: TaskMeta, taskId: string): Promise<void>;
  /** Writes the event (after anything folded before it); resolves when it is done (or failed). */
  record(event: StreamResponse, meta: TaskMeta, taskId: string): Promise<void>;
  /** The stream carrying the task ended: writes what is folded and forgets the task's last state. */
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
  /** The task's last queued write. */
  tail: Promise<void>;
  /** A stream is folding the task: keep the entry (and `writtenState`) until it ends. */
  streaming: boolean;
  /** A persist point came: the fold is written at the end of this turn of the event loop. */
  due?: NodeJS.Immediate;
}

/** Events a fold holds at most before it is written without a state change. */
export const MAX_UNWRITTEN = 256;

export function createTaskWriter(registry: TaskRegistry, logger?: Logger): TaskWriter {
  const folds = new Map<string, TaskFold>();

  function entry(taskId: string, meta: TaskMeta): TaskFold {
    let found = folds.get(taskId);
    if (!found) folds.set(taskId, (found = { meta, pending: [], tail: Promise.resolve(), streaming: false }));
    return found;
  }

  /** Queues one write of everything folded for the task; resolves when it is done. */
  function write(taskId: string, fold: TaskFold): Promise<void> {
    if (fold.due) {
      clearImmediate(fold.due);
      fold.due = undefined;
    }
    if (fold.pending.length > 0) {
      const batch = fold.pending;
      fold.pending = [];
      const { meta } = fold;
      fold.tail = fold.tail
        .then(() => registry.applyAll(batch, meta))
        .then(
          () => undefined,
          (error: unknown) => logger?.warn({ err: error, taskId }, 'task registry write failed'),
        );
    }
    const tail = fold.tail;
    // A task no stream folds is forgotten once its last write is done.
    void tail.then(() => {
      if (folds.get(taskId) === fold && !fold.streaming && fold.pending.length === 0 && fold.tail === tail) folds.delete(taskId);
    });
    return tail;
  }

  function settled(taskId: string): Promise<void> {
    const fold = folds.get(taskId);
    if (!fold) return Promise.resolve();
    // A write already due at the end of this turn of the event loop is waited for, not hastened: the turn's
    // changes stay one write (a lane naming its running task waits for the write that resumed it: turn-naming.ts).
    // Every write takes all that is folded, so once the due one went, so did everything folded before this call.
    if (fold.due) return new Promise<void>((resolve) => setImmediate(resolve)).then(() => fold.tail);
    return write(taskId, fold);
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
