import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { countBound } from '../lru-count-bound.js';
import { isTerminalState, type StreamResponse, type TaskState, type TaskStatus } from '../model/index.js';
import { eventState, isNotifiedState } from './payload.js';
import { eventStatus, instanceEventId, stableEventId, statusKey, UNTOLD } from './event-id.js';

interface TaskTrack {
  /** Last state seen, so `terminal` notifies once per change, not once per chunk. */
  state?: TaskState;
  /** The turn and the status (`statusKey`) that brought `state` about, when the turn is known: see `endedAgain`. */
  since?: { turn: string; status: string };
  /**
   * The status a turn answered as found began in (as-found.ts's key): the last turn's end, no end of this one. Until
   * the task's state changes, any other status in its state is this turn's end, one that tells nothing of itself too.
   */
  asFound?: string;
  /** Events accepted for the task by this watcher: the tail of their fallback event ids. */
  seq: number;
}

const MAX_TRACKED_TASKS = 50_000;

/**
 * Whether a status in the state the task is in already is a later turn's end: an agent asked again (input-required
 * after input-required, streamed without a working state between). The turn is another than the one that brought the
 * state about, and so is the status: the Task a follow-up's stream opens with (the task as the agent found it) repeats
 * the last turn's. Unknown turns, or a status that tells nothing of itself, are not taken for a new end.
 */
function endedAgain(track: TaskTrack, status: TaskStatus, turnMessageId: string | undefined): boolean {
  if (track.asFound !== undefined) return statusKey(status) !== track.asFound;
  const since = track.since;
  if (!since || turnMessageId === undefined || since.turn === turnMessageId) return false;
  const key = statusKey(status);
  return key !== UNTOLD && key !== since.status;
}

/** A turn began whose states before its end may pass unseen: the state it ends in is a change, unless the task is finished. */
function turnBegan(track: TaskTrack): void {
  if (track.state === undefined || isTerminalState(track.state)) return;
  track.state = undefined;
  delete track.since;
  delete track.asFound;
}

/** An accepted event's id; `stable` when every replica (and a restarted process) derives the same one. */
export interface AcceptedEvent {
  eventId: string;
  stable: boolean;
}

/** The push watcher's record of the tasks whose events it saw: which of them are notified, and under which id. */
export interface TaskTracks {
  /** Decides synchronously, in event order, whether an event is notified; returns its event id. */
  accept(event: StreamResponse, taskId: string, wholeTurn: boolean, turnMessageId?: string): AcceptedEvent | undefined;
  /**
   * A turn began on the task, answered with it as found (`asFound`, as-found.ts's key), if the task is tracked and
   * not finished: that status is no end of the turn, any other one in the same state is.
   */
  turnBeganOn(taskId: string, asFound: string): void;
}

export function createTaskTracks(deps: { events: 'terminal' | 'all' }): TaskTracks {
  const tracks = new LRUCache<string, TaskTrack>(countBound(MAX_TRACKED_TASKS));
  /** Fallback event ids stay unique across restarts and replicas without coordination. */
  const instance = randomBytes(6).toString('hex');

  return {
    accept(event, taskId, wholeTurn, turnMessageId) {
      // Messages are not task events: A2A pushes Task, status and artifact updates only.
      if ('message' in event) return undefined;
      const track = tracks.get(taskId) ?? { seq: 0 };
      // A blocking answer stands for a whole turn whose working states were never seen here: the state it
      // reports is a change even when the previous turn ended in the same one (iac-code: input-required).
      if (wholeTurn) turnBegan(track);
      const state = eventState(event);
      let notify = deps.events === 'all';
      // A terminal state is final: a status arriving after it is stale (a stream still relaying
      // chunks sent before the CancelTask answer), and must not make the terminal state "change" again.
      if (state !== undefined && !(track.state !== undefined && isTerminalState(track.state))) {
        const status = eventStatus(event)!;
        const changed = state !== track.state || endedAgain(track, status, turnMessageId);
        notify ||= changed && isNotifiedState(state);
        track.state = state;
        if (changed) {
          track.since = turnMessageId !== undefined ? { turn: turnMessageId, status: statusKey(status) } : undefined;
          delete track.asFound;
        }
      }
      tracks.set(taskId, track);
      if (!notify) return undefined;
      track.seq += 1;
      const stable = stableEventId(taskId, event);
      return stable ? { eventId: stable, stable: true } : { eventId: instanceEventId(taskId, instance, track.seq), stable: false };
    },

    turnBeganOn(taskId, asFound) {
      const track = tracks.get(taskId);
      if (track?.state !== undefined && !isTerminalState(track.state)) track.asFound = asFound;
    },
  };
}
