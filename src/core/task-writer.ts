import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { eventTaskState, withFields, type StreamResponse, type TaskState } from '../model/index.js';
import { settlesWithin } from '../settles-within.js';
import type { Settling } from './agent-port.js';
import { heldWrite } from './held-write.js';
import { appended } from './small-lists.js';
import type { TaskMeta, TaskRegistry } from './task-registry/types.js';
import { DEFAULT_PACE, type TaskWriterPace } from './task-write-pace.js';
import { retryWrite, type Retrying } from './write-retries.js';

/**
 * The core's registry writes: a helper the recording decorator (recording.ts) and the readers around
 * it (settled) share, not a port wrapper. Writes of one task run one at a time on a promise chain, so
 * they keep their order and a Redis round trip never delays the event that caused it; write errors
 * are logged, never thrown into a stream. A write that fails (a Redis blip: a command past
 * `redis-command-timeout-ms`, a failover, a restart, a refusal) is tried again before the task's later writes:
 * quickly (RETRY_DELAYS_MS), then every RETRY_EVERY_MS until RETRY_FOR_MS after its first failure (write-retries.ts),
 * since a turn's last state lost to an outage would leave its task recorded running for good. Meanwhile what the
 * task folds stays in its fold and goes in ONE write once the failing one lands, and a read that must see the task
 * (`settled`) has the write tried at once and waits for that try only, never the outage. Each write carries an id of
 * its own (`writeId`), which the store keeps with the task, so a write that timed out on the client but was applied
 * by Redis all the same is not applied again by its retry. When the store closes (the gateway stops), waiting writes
 * are tried one last time, for STOP_WITHIN_MS at most (`TaskStore.beforeClose`).
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
   * failed once: its retries go on behind; or held behind a write of the task being retried). For the one event a
   * stream waits to relay until it is written (recording.ts: a new task's first).
   */
  foldWritten(event: StreamResponse, meta: TaskMeta, taskId: string): Promise<void>;
  /** Writes the event (after anything folded before it); resolves as foldWritten does. */
  record(event: StreamResponse, meta: TaskMeta, taskId: string): Promise<void>;
  /**
   * The stream carrying the task ended: writes what is folded and forgets the task's last state; resolves once that
   * write was tried (the stream's end, and its context lane, wait for no retry), or is held behind one being retried.
   */
  end(taskId: string): Promise<void>;
  /** settled() for every task (ListTasks). */
  settledAll(): Promise<void>;
}

interface TaskFold {
  meta: TaskMeta;
  /** Events folded since the last write; made at the first (small-lists.ts: most writes hold one or a few). */
  pending?: StreamResponse[];
  /** State of the last event that triggered a write; a status in another state writes again. */
  writtenState?: TaskState;
  /** The task's last queued write, retries included. */
  tail: Promise<void>;
  /** The task's last queued write tried once (or held behind one being retried). */
  tried: Promise<void>;
  /** Every queued write of the task is over (`tail` settled). */
  idle: boolean;
  /** A write of the task being tried again: later writes wait in `pending`, for one write once it is over. */
  retrying?: Retrying;
  /** Resolves when a write of the task starts being tried again (made when first waited for). */
  retryStarts?: { promise: Promise<void>; resolve(): void };
  /** A stream is folding the task: keep the entry (and `writtenState`) until it ends. */
  streaming: boolean;
  /** A persist point came: the fold is written at the end of this turn of the event loop. */
  due?: NodeJS.Immediate;
}

/** Events a fold holds at most before it is written without a state change. */
export const MAX_UNWRITTEN = 256;

/** Told of the writes being tried again (for metrics): one starts, one is over, landed or given up. */
export interface RegistryWriteWatch {
  retrying(): void;
  over(landed: boolean): void;
}

// Shared by every fold and write: a settled promise, and a write's outcome (a failed one carries its error to its retries).
const SETTLED = Promise.resolve();
const landed = (): undefined => undefined;
const failedWith = (error: unknown) => ({ error });

export function createTaskWriter(
  registry: TaskRegistry,
  logger?: Logger,
  paceOptions: Partial<TaskWriterPace> = {},
  watch?: RegistryWriteWatch,
): TaskWriter {
  const pace: TaskWriterPace = withFields(DEFAULT_PACE, paceOptions);
  const folds = new Map<string, TaskFold>();
  let stopping = false;

  function entry(taskId: string, meta: TaskMeta): TaskFold {
    let found = folds.get(taskId);
    if (!found) folds.set(taskId, (found = { meta, tail: SETTLED, tried: SETTLED, idle: true, streaming: false }));
    return found;
  }

  /** Resolves when a write of the task starts being tried again. */
  function retryStarted(fold: TaskFold): Promise<void> {
    if (!fold.retryStarts) {
      let resolve!: () => void;
      const promise = new Promise<void>((settle) => (resolve = settle));
      fold.retryStarts = { promise, resolve };
    }
    return fold.retryStarts.promise;
  }

  // Unique to this writer, so a write's id names it among every replica's writes of the task.
  const writerTag = randomBytes(6).toString('base64url');
  let writes = 0;

  /** The batch tried again after it failed with `error`, until it is written or given up; later writes wait behind it. */
  function retried(taskId: string, fold: TaskFold, batch: readonly StreamResponse[], apply: () => Promise<unknown>, error: unknown): Promise<void> {
    if (!stopping) logger?.warn({ err: error, taskId }, 'task registry write failed; trying again');
    watch?.retrying();
    const { retrying, over } = retryWrite(apply, error, pace, {
      stopping: () => stopping,
      slow: (err) => logger?.warn({ err, taskId, waiting: heldWrite(batch), forMs: pace.forMs }, 'task registry write still failing; trying on'),
      over: (outcome) => {
        fold.retrying = undefined;
        watch?.over(outcome.landed);
        if (!outcome.landed) {
          const { error: err, attempts } = outcome;
          logger?.error({ err, taskId, lost: heldWrite(batch), attempts, ...(stopping ? { atStop: true } : {}) }, 'task registry write lost');
        }
        // What the task folded meanwhile: one write, behind this one.
        if (fold.pending) void write(taskId, fold);
      },
    });
    fold.retrying = retrying;
    fold.retryStarts?.resolve();
    fold.retryStarts = undefined;
    return over;
  }

  /**
   * Queues one write of everything folded for the task; resolves once it was tried: a failed one is tried again
   * meanwhile, and the task's later writes wait behind it (`fold.tail`). While one is tried again, nothing is
   * queued: what is folded waits in the fold, written in one write once that one is over (resolves at once).
   */
  function write(taskId: string, fold: TaskFold): Promise<void> {
    if (fold.due) {
      clearImmediate(fold.due);
      fold.due = undefined;
    }
    if (fold.retrying) return SETTLED;
    if (fold.pending) {
      const batch = fold.pending;
      fold.pending = undefined;
      const { meta } = fold;
      const writeId = `${writerTag}.${(writes++).toString(36)}`;
      const apply = () => registry.applyAll(batch, meta, writeId);
      const first = fold.tail.then(apply).then(landed, failedWith);
      const tried = first.then(landed);
      // Behind another write, this one is held (not tried) for as long as that one is tried again.
      fold.tried = fold.idle ? tried : Promise.race([tried, retryStarted(fold)]);
      fold.tail = first.then((failed) => failed && retried(taskId, fold, batch, apply, failed.error));
      fold.idle = false;
    }
    const tail = fold.tail;
    void tail.then(() => {
      if (fold.tail !== tail) return;
      fold.idle = true;
      // A task no stream folds is forgotten once its last write is done.
      if (folds.get(taskId) === fold && !fold.streaming && !fold.pending) folds.delete(taskId);
    });
    return fold.tried;
  }

  /**
   * Writes what is folded for the task and waits for its queued writes; a write being tried again is tried at once,
   * and the read waits for that try only: once it failed, the read goes on with the task as recorded.
   */
  async function settled(taskId: string): Promise<void> {
    const fold = folds.get(taskId);
    if (!fold) return;
    // A write already due at the end of this turn of the event loop is waited for, not hastened: the turn's
    // changes stay one write (a lane naming its running task waits for the write that resumed it: turn-naming.ts).
    // Every write takes all that is folded, so once the due one went, so did everything folded before this call.
    if (fold.due) await new Promise<void>((resolve) => setImmediate(resolve));
    else void write(taskId, fold);
    for (;;) {
      const { retrying, tail } = fold;
      if (retrying) {
        // Landed: what the task folded meanwhile is queued now (RetryHooks.over), and waited for in turn.
        if (!(await retrying.hasten())) return;
        continue;
      }
      if (fold.idle) return;
      await Promise.race([tail, retryStarted(fold)]);
    }
  }

  /**
   * The store closes (the gateway stops, after its drain): every write still waiting is tried once more, what is
   * folded is written, and a failed try is the last (logged lost), for `stopWithinMs` at most.
   */
  async function stop(): Promise<void> {
    stopping = true;
    const busy = () => [...folds.values()].some((fold) => !fold.idle || fold.pending);
    // A round hastens or writes what waits; a write given up in it queues what its task folded meanwhile.
    const rounds = async () => {
      for (let round = 0; round < 3 && busy(); round++) await Promise.all([...folds.keys()].map(settled));
    };
    await settlesWithin(rounds(), pace.stopWithinMs);
  }
  registry.beforeClose?.(stop);

  // The due write, handed its task and fold by setImmediate: no arrow (and no context for it) per event folded.
  const writeDue = (taskId: string, fold: TaskFold): void => void write(taskId, fold);

  /** Adds a streamed event to its task's fold, its write due at the next persist point. */
  function folded(event: StreamResponse, meta: TaskMeta, taskId: string): TaskFold {
    const fold = entry(taskId, meta);
    fold.streaming = true;
    const pending = (fold.pending = appended(fold.pending, event));
    const state = eventTaskState(event);
    const changes = 'task' in event || (state !== undefined && state !== fold.writtenState);
    if (changes) fold.writtenState = state;
    if (pending.length >= MAX_UNWRITTEN) void write(taskId, fold);
    else if (changes) fold.due ??= setImmediate(writeDue, taskId, fold);
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
      fold.pending = appended(fold.pending, event);
      return write(taskId, fold);
    },

    end(taskId) {
      const fold = folds.get(taskId);
      if (!fold) return SETTLED;
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
