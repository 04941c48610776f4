import type { AgentPort, CallContext } from '../core/agent-port.js';
import type { StreamResponse } from '../model/index.js';
import { createTurnReader, turnEnded } from './follow-turn.js';
import { followEntry, inMemoryOnly, type FollowEntry, type FollowJournal } from './follow-journal.js';
import type { PushLogger } from './queue/types.js';
import type { PushWatcher } from './watch.js';
import { followLifetime } from './follow-lifetime.js';
import { defaultFollowsPerOwner, followsPerOwner } from './follows-per-owner.js';
import { throttledWarnings } from '../throttled-warnings.js';

/**
 * Following a task the gateway answered while it was still running (a `returnImmediately` turn, or an
 * agent that answers a blocking call early), or whose streams stopped before its turn ended
 * (carried-turns.ts): no caller streams it, so without a follow its end would never pass through the
 * gateway and never be pushed.
 */
export interface TaskFollower {
  /**
   * Follows the answer's task until its turn ends, unless it has ended already or is followed. `tenant`: the
   * one the caller's call named, the task's own: every call of the follow names it, or an agent that keeps
   * tasks per tenant would not know the task (and the gateway would record it lost). Absent: the default tenant.
   * `turnMessageId`: the caller's message that began the turn (FollowEntry). `asFound`: the answer shows the task
   * as the turn found it (as-found.ts), waiting for input: the turn is followed all the same. Resolves once the
   * journal holds the follow (or could not be written: logged), so an answer sent after it outlives a crash.
   */
  follow(answer: StreamResponse, ctx: CallContext, tenant?: string, turnMessageId?: string, asFound?: string): Promise<void>;
  /** Whether this replica follows the task now. */
  follows(taskId: string): boolean;
  /**
   * Journals the turn a stream of this gateway carries, so that a restart or another replica takes it up
   * should the gateway go before the turn ends; false when it could not be written (or follows are off).
   */
  keep(entry: FollowEntry): Promise<boolean>;
  /** The turn `keep` journaled ended under its stream: off the journal, unless a follow of it runs. */
  forget(taskId: string): Promise<void>;
  /**
   * Follows a turn from where the streams that carried it left off (`journaled`: `keep` wrote it). Once
   * the follower stops it is only journaled, to be taken up after the restart. Resolves once journaled.
   */
  takeUp(entry: FollowEntry, journaled: boolean): Promise<void>;
  /**
   * Takes up the follows the journal kept from before a restart (those not timed out yet); with a
   * journal shared by replicas, also those of replicas that are gone, now and every `claimEveryMs`.
   */
  resume(): Promise<void>;
  /** Resolves once no follow runs (each ended with its task's turn, or gave up). */
  idle(): Promise<void>;
  /** Ends every follow; resolves once none runs, so what they saw is with the watcher, and the journal is written. */
  stop(): Promise<void>;
}

export interface TaskFollowerDeps {
  /** The gateway: its subscriptions are recorded in the registry like a caller's. */
  port: Pick<AgentPort, 'subscribeToTask' | 'getTask'>;
  watcher: Pick<PushWatcher, 'watchStream' | 'observeTask'>;
  /** How long one task is followed at most; 0 follows none. */
  timeoutMs: number;
  logger: PushLogger;
  /** Pauses between attempts (tests shorten them). */
  retry?: { initialDelayMs: number; maxDelayMs: number };
  /** At most this many tasks followed at once (`push-follow-max`). */
  maxFollowed?: number;
  /** At most this many of them started by one caller (`push-follow-max-per-owner`, 0: none); default a quarter of `maxFollowed`. */
  maxFollowedPerOwner?: number;
  /** Where follows in progress are kept across a restart (and, shared by replicas, taken over from one that is gone); default: this process only. */
  journal?: FollowJournal;
}

/** A follow under way; `journaledAt`: when the journal was known to hold it (undefined: not yet, or never). */
interface RunningFollow {
  done: Promise<void>;
  journaledAt?: number;
  letGo(): void;
  /** The turn it follows (FollowEntry.turnMessageId). */
  turnMessageId?: string | undefined;
  /** A later turn of the task, come while this follow still ran: followed once this one is done. */
  next?: { entry: FollowEntry; journaled: boolean };
}

const DEFAULT_RETRY = { initialDelayMs: 1_000, maxDelayMs: 30_000 };
const DEFAULT_MAX_FOLLOWED = 10_000;

/** Each follow reads its turn to its end (follow-turn.ts); here they are started, counted, journaled and handed over. */
export function createTaskFollower(deps: TaskFollowerDeps): TaskFollower {
  const { logger } = deps;
  const run = createTurnReader({ port: deps.port, watcher: deps.watcher, logger, retry: deps.retry ?? DEFAULT_RETRY });
  const maxFollowed = deps.maxFollowed ?? DEFAULT_MAX_FOLLOWED;
  const perOwner = followsPerOwner(deps.maxFollowedPerOwner ?? defaultFollowsPerOwner(maxFollowed), logger);
  const stopping = new AbortController();
  const running = new Map<string, RunningFollow>();
  const journal = deps.journal ?? inMemoryOnly;
  let adoption: { timer: NodeJS.Timeout; round?: Promise<void> } | undefined;
  // A round every few seconds fails for as long as Redis does not answer: told once a minute, the rest counted.
  const claimFailed = throttledWarnings(logger);
  /** Journal writes under way, each after the last one of its task: stop waits for them. */
  const writes = new Map<string, Promise<unknown>>();

  function journaling<T>(taskId: string, write: () => Promise<T>): Promise<T> {
    const previous = writes.get(taskId);
    // Begun at once when nothing is pending: the journal holds the entry as soon as it can.
    const written = previous ? previous.then(write) : write();
    const settled = written.catch(() => undefined);
    writes.set(taskId, settled);
    void settled.then(() => {
      if (writes.get(taskId) === settled) writes.delete(taskId);
    });
    return written;
  }

  /** Journals a turn (followed or not yet); false when it could not be written. */
  function journalAdd(entry: FollowEntry): Promise<boolean> {
    return journaling(entry.taskId, () => journal.add(entry)).then(
      () => true,
      (error: unknown) => {
        logger.warn({ err: error, taskId: entry.taskId }, 'push follow could not be journaled; a restart before the turn ends loses it');
        return false;
      },
    );
  }

  /**
   * Follows `entry.taskId` until its turn ends or `entry.until`; journaled until then, kept when the
   * follower stops. `journaled`: the journal holds it already (a follow resumed or claimed).
   */
  function start(entry: FollowEntry, journaled = false): void {
    if (stopping.signal.aborted || running.has(entry.taskId)) return;
    if (running.size >= maxFollowed) {
      logger.warn(
        { taskId: entry.taskId, maxFollowed },
        'push follow: push-follow-max tasks are followed already; the end of this turn is not pushed',
      );
      return;
    }
    // The caller's identity, not its lifetime: the follow outlives the call that started it.
    const lifetime = followLifetime(stopping.signal, entry.until - Date.now());
    // Vouched: the entry's principal is the caller who started the turn, even once the registry forgot the task.
    const ctx: CallContext = {
      principal: entry.principal,
      signal: lifetime.signal,
      ownerVouched: true,
      ...(entry.surface ? { surface: entry.surface } : {}),
    };
    let letGo = false;
    const follow: RunningFollow = {
      done: Promise.resolve(),
      ...(journaled ? { journaledAt: Date.now() } : {}),
      turnMessageId: entry.turnMessageId,
      letGo() {
        letGo = true;
        lifetime.letGo();
      },
    };
    follow.done = run(entry, ctx)
      .then(() => {
        if (lifetime.timedOut()) {
          logger.warn(
            { taskId: entry.taskId, timeoutMs: deps.timeoutMs },
            'push follow: gave up at push-follow-timeout-ms; the end of this turn is not pushed',
          );
        }
      })
      .catch((error: unknown) => logger.error({ err: error, taskId: entry.taskId }, 'push follow failed'))
      .then(async () => {
        // A follow the stop cut short is taken up again after the restart; one let go is another replica's; any other one is over.
        if (!stopping.signal.aborted && !letGo) await journaling(entry.taskId, () => journal.remove(entry.taskId));
      })
      .catch((error: unknown) => logger.warn({ err: error, taskId: entry.taskId }, 'push follow could not be taken off the journal'))
      .finally(() => {
        lifetime.end();
        running.delete(entry.taskId);
        perOwner.ended(entry.principal);
        // Off the journal by now: the next turn's entry is journaled after this one left it, not removed with it.
        if (follow.next) void takeUp(follow.next.entry, follow.next.journaled);
      });
    perOwner.started(entry.principal);
    running.set(entry.taskId, follow);
  }

  /** Follows a turn (FollowEntry) unless its task is followed already; a later turn of it waits for that follow. */
  function takeUp(entry: FollowEntry, journaled: boolean): Promise<void> {
    if (deps.timeoutMs <= 0) return Promise.resolve();
    const current = running.get(entry.taskId);
    if (current) {
      // The caller sent the next turn while the last one's follow still runs (winding down at that turn's end, or
      // before it saw it): followed once that follow is done. Dropped, the next turn's end was never pushed.
      if (entry.turnMessageId !== undefined && entry.turnMessageId !== current.turnMessageId) current.next = { entry, journaled };
      return Promise.resolve();
    }
    if (stopping.signal.aborted) {
      // Cut by the shutdown before its end: the process after the restart follows it.
      return journaled ? Promise.resolve() : journalAdd(entry).then(() => undefined);
    }
    // A caller's own turn: refused past its share. Follows taken up from the journal (a restart, a replica
    // gone) were within some replica's share when they began, and are not refused (only counted).
    if (perOwner.refuses(entry)) return Promise.resolve();
    start(entry, journaled);
    const started = running.get(entry.taskId);
    if (!started || journaled) return Promise.resolve();
    // Noted once written: until then the follow is not missing from the journal (letGoOfTakenOver).
    return journalAdd(entry).then((written) => {
      if (written) started.journaledAt = Date.now();
    });
  }

  /**
   * A replica whose journal lease lapsed (Redis out of reach, a stall) may find some of its follows
   * taken over by another replica: those leave its journal, and it lets them go rather than hold a
   * second upstream connection for them. Only follows known to be journaled before the journal was
   * read count: one whose entry is still being written is not missing.
   */
  async function letGoOfTakenOver(held: () => Promise<Set<string>>): Promise<void> {
    const readAt = Date.now();
    const own = await held();
    for (const [taskId, follow] of running) {
      if (follow.journaledAt === undefined || follow.journaledAt >= readAt || own.has(taskId)) continue;
      logger.info({ taskId }, 'push follow: another replica took this follow over; this one lets it go');
      follow.letGo();
    }
  }

  /** One round of taking over the follows of replicas that are gone, as many as there is room for. */
  function adoptOrphans(claim: (limit: number) => Promise<FollowEntry[]>): Promise<void> {
    if (!adoption || adoption.round || stopping.signal.aborted) return adoption?.round ?? Promise.resolve();
    const round = (async () => {
      if (journal.held) await letGoOfTakenOver(journal.held.bind(journal));
      // Claimed but not started because of the stop: they stay this replica's, and its stop frees them for another.
      for (const entry of await claim(maxFollowed - running.size)) start(entry, true);
    })()
      .catch((error: unknown) => claimFailed({ err: error }, 'push follow: the follows of replicas that are gone could not be claimed'))
      .finally(() => {
        if (adoption) delete adoption.round;
      });
    adoption.round = round;
    return round;
  }

  return {
    follow(answer, caller, tenant = '', turnMessageId, asFound) {
      if (!('task' in answer) || (turnEnded(answer.task.status.state) && asFound === undefined)) return Promise.resolve();
      return takeUp(followEntry(answer.task.id, caller, tenant, deps.timeoutMs, turnMessageId, asFound), false);
    },

    follows: (taskId) => running.has(taskId),

    keep: (entry) => (deps.timeoutMs <= 0 || stopping.signal.aborted ? Promise.resolve(false) : journalAdd(entry)),

    async forget(taskId) {
      if (stopping.signal.aborted || running.has(taskId)) return;
      await journaling(taskId, () => journal.remove(taskId)).catch((error: unknown) =>
        logger.warn({ err: error, taskId }, 'push follow could not be taken off the journal'),
      );
    },

    takeUp,

    async resume() {
      if (deps.timeoutMs <= 0 || stopping.signal.aborted) return;
      // Scheduled first: a journal that cannot be read now is asked again at the next round.
      const claim = journal.claimOrphans?.bind(journal);
      if (claim && !adoption) {
        adoption = { timer: setInterval(() => void adoptOrphans(claim), Math.max(1, journal.claimEveryMs ?? 5_000)) };
        adoption.timer.unref();
      }
      for (const entry of await journal.entries()) {
        if (stopping.signal.aborted) return;
        if (entry.until > Date.now()) start(entry, true);
        else await journal.remove(entry.taskId);
      }
      if (claim) await adoptOrphans(claim);
    },

    async idle() {
      while (running.size > 0) await Promise.all([...running.values()].map((follow) => follow.done));
    },

    async stop() {
      stopping.abort();
      if (adoption) {
        clearInterval(adoption.timer);
        await adoption.round;
      }
      await this.idle();
      while (writes.size > 0) await Promise.all(writes.values());
    },
  };
}
