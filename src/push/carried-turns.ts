import type { CallContext } from '../core/agent-port.js';
import { tapIterable } from '../core/iterables.js';
import type { TaskRegistry } from '../core/task-registry/types.js';
import { eventTaskRef, type StreamResponse, type TaskState } from '../model/index.js';
import type { PushConfigStore } from './config-store/types.js';
import type { TaskFollower } from './follow.js';
import { turnEnded } from './follow-turn.js';
import { followEntry, type FollowEntry } from './follow-journal.js';
import { eventState } from './payload.js';
import { lastCallerMessageId } from './turn-of-record.js';
import type { PushLogger } from './queue/types.js';

/**
 * The turns that callers' streams carry through this gateway. A stream is no promise to watch a turn to
 * its end: its caller may leave, the gateway's drain may cut it, the process may die. So the turn of a
 * task with push configs is journaled as a follow while streams carry it (a restart, or another
 * replica, takes it up from there), and followed from where the last stream left off when that stream
 * ends before the turn does. A config created for a running task that no stream here carries starts a
 * follow at once.
 */
export interface CarriedTurns {
  /**
   * Passes a caller's stream through (outside the push watcher's), keeping track of the turn it carries.
   * `turnMessageId`: a send's, the id of the caller's message that began the turn (FollowEntry).
   */
  carry(
    stream: AsyncIterable<StreamResponse>,
    ctx: CallContext,
    tenant: string,
    withInlineConfig: boolean,
    turnMessageId?: string,
  ): AsyncIterable<StreamResponse>;
  /** A config was just created for `taskId` by its owner: its running turn must reach it. */
  configured(taskId: string, ctx: CallContext, tenant: string): Promise<void>;
  /** Resolves once what streams that ended left to do is done (journaled, or followed). */
  stop(): Promise<void>;
}

export interface CarriedTurnsDeps {
  follower: Pick<TaskFollower, 'follow' | 'follows' | 'keep' | 'forget' | 'takeUp'>;
  store: Pick<PushConfigStore, 'forTask'>;
  registry: Pick<TaskRegistry, 'get'>;
  /** `push-follow-timeout-ms`: 0 follows none. */
  timeoutMs: number;
  logger: PushLogger;
}

/** One task's turn while streams here carry it. */
interface Carried {
  streams: number;
  entry: FollowEntry;
  /** Whether the journal holds it (a config is known to be there); chained when a config comes later. */
  kept: Promise<boolean>;
  /** A stream that carried it ended on the turn's end (a follow-up's may open on the last turn's). */
  ended: boolean;
}

export function createCarriedTurns(deps: CarriedTurnsDeps): CarriedTurns {
  const { follower, logger } = deps;
  const carried = new Map<string, Carried>();
  const leaving = new Set<Promise<void>>();

  /**
   * Whether the task has push configs; `unknown` when the store cannot say (its Redis away, where the
   * journal would be too): at a stream's end a follow for nothing beats a lost end.
   */
  async function hasConfigs(taskId: string, unknown: boolean): Promise<boolean> {
    try {
      return (await deps.store.forTask(taskId)).length > 0;
    } catch (error) {
      if (unknown) logger.warn({ err: error, taskId }, 'push: the configs of a task whose stream stopped could not be read; its turn is followed');
      return unknown;
    }
  }

  function keepOnceConfigured(turn: Carried, configured: Promise<boolean>): Promise<boolean> {
    return configured.then((has) => (has && !turn.ended ? follower.keep(turn.entry) : false));
  }

  function joined(taskId: string, ctx: CallContext, tenant: string, withInlineConfig: boolean, turnMessageId: string | undefined): Carried {
    const turn = carried.get(taskId);
    if (turn) {
      turn.streams += 1;
      return turn;
    }
    const entry = followEntry(taskId, ctx, tenant, deps.timeoutMs, turnMessageId);
    const fresh: Carried = { streams: 1, entry, kept: Promise.resolve(false), ended: false };
    fresh.kept = keepOnceConfigured(fresh, withInlineConfig ? Promise.resolve(true) : hasConfigs(taskId, false));
    carried.set(taskId, fresh);
    return fresh;
  }

  async function lastStreamLeft(taskId: string, turn: Carried): Promise<void> {
    const kept = await turn.kept;
    // A stream that took the task up meanwhile (its next turn, a resubscription) carries it now, the journal's
    // entry with it: taking that off, or following beside it, would lose or double the task's end.
    if (carried.has(taskId)) return;
    if (turn.ended) {
      if (kept) await follower.forget(taskId);
    } else if (kept || (await hasConfigs(taskId, true))) {
      void follower.takeUp(turn.entry, kept);
    }
  }

  function left(taskId: string, last: TaskState | undefined): void {
    const turn = carried.get(taskId);
    if (!turn) return;
    turn.streams -= 1;
    turn.ended ||= turnEnded(last);
    if (turn.streams > 0) return;
    carried.delete(taskId);
    const done: Promise<void> = lastStreamLeft(taskId, turn)
      .catch((error: unknown) => logger.warn({ err: error, taskId }, 'push: a streamed turn could not be handed to a follow'))
      .finally(() => leaving.delete(done));
    leaving.add(done);
  }

  return {
    carry(stream, ctx, tenant, withInlineConfig, turnMessageId) {
      if (deps.timeoutMs <= 0) return stream;
      let taskId: string | undefined;
      let last: TaskState | undefined;
      return tapIterable(stream, {
        item(event) {
          last = eventState(event) ?? last;
          if (taskId) return;
          taskId = eventTaskRef(event).taskId;
          if (!taskId) return;
          const turn = joined(taskId, ctx, tenant, withInlineConfig, turnMessageId);
          // This event tells the caller its task exists: a turn sent with its webhook is journaled first, as a
          // returnImmediately answer is, so a gateway killed once it is sent still pushes the turn's end after its
          // restart. `kept` never rejects: a write that fails is logged (follow.ts) and the stream goes on.
          if (withInlineConfig) return turn.kept;
        },
        end() {
          if (taskId) left(taskId, last);
        },
      });
    },

    async configured(taskId, ctx, tenant) {
      if (deps.timeoutMs <= 0) return;
      const turn = carried.get(taskId);
      if (turn) {
        turn.kept = turn.kept.then((kept) => kept || keepOnceConfigured(turn, Promise.resolve(true)));
        return;
      }
      if (follower.follows(taskId)) return;
      try {
        const task = await deps.registry.get(taskId, ctx.principal);
        // The running turn is the one the caller's last message began.
        if (task) await follower.follow({ task }, ctx, tenant, lastCallerMessageId(task));
      } catch (error) {
        // The config is stored: its creation stands, though this turn's end may now go unpushed.
        logger.warn({ err: error, taskId }, 'push: the task of a new config could not be read; its running turn is not followed');
      }
    },

    async stop() {
      while (leaving.size > 0) await Promise.all(leaving);
    },
  };
}
