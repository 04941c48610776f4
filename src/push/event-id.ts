import { createHash } from 'node:crypto';
import type { StreamResponse, TaskStatus } from '../model/index.js';
import { isNotifiedState } from './payload.js';

/** The status an event reports; undefined for artifact updates and messages. */
export function eventStatus(event: StreamResponse): TaskStatus | undefined {
  if ('task' in event) return event.task.status;
  if ('statusUpdate' in event) return event.statusUpdate.status;
  return undefined;
}

/** What tells one status of a state from another: a chunk of one message repeats it, a new message does not. */
export const statusKey = (status: TaskStatus): string => JSON.stringify([status.timestamp ?? null, status.message?.messageId ?? null]);
/** The key of a status that tells nothing of itself (no timestamp, no message): it cannot be told from another such. */
export const UNTOLD = statusKey({ state: 'TASK_STATE_UNSPECIFIED' });

/**
 * The `A2A-Event-Id` of a status change that every replica, and a restarted process, derives alike:
 * `<taskId>:<hash>` of the task id, the state, the status timestamp and the status message's id, so
 * the statusUpdate a stream relays and the Task a follow reads afterwards name one change by one id.
 * Undefined when the status has no timestamp, and for artifact updates: nothing in them then tells
 * two changes apart (a second turn ending in the same state would get the id of the first).
 * A Task of a turn still under way that carries artifacts also hashes them in (`snapshotText`), any other
 * status of a turn under way its message's parts (`progressText`).
 * The prefix is the task id as the event names it; a 0.2.5 receiver's id swaps it for the caller's.
 */
export function stableEventId(taskId: string, event: StreamResponse): string | undefined {
  const status = eventStatus(event);
  if (!status?.timestamp) return undefined;
  const hash = createHash('sha256').update(JSON.stringify([taskId, status.state, status.timestamp, status.message?.messageId ?? null]));
  const text = snapshotText(event) ?? progressText(status);
  if (text !== undefined) hash.update('\n').update(text);
  return `${taskId}:${hash.digest('hex').slice(0, 32)}`;
}

/**
 * The artifacts of a Task of a turn still under way (pushed under `push-events: all` only): the text
 * streamed so far, which a gateway taking a turn over (a restart, another replica) reads in the first
 * Task its SubscribeToTask sends. Its status is the one already pushed, but the chunks streamed while no
 * gateway watched are only in it, and the chunks after it append to them: it must not be skipped as that
 * status again. A Task that ends a turn (or waits for input) keeps the status-only id: it must name the
 * same change as the statusUpdate another replica relays, and that replica relayed the turn's chunks too.
 * Hashing the JSON costs little: a Task comes once per stream taken over, not once per chunk.
 */
function snapshotText(event: StreamResponse): string | undefined {
  if (!('task' in event) || isNotifiedState(event.task.status.state)) return undefined;
  const artifacts = event.task.artifacts ?? [];
  return artifacts.length > 0 ? JSON.stringify(artifacts) : undefined;
}

/**
 * The words of a status of a turn still under way (pushed under `push-events: all` only). An agent streams its
 * progress message in chunks, each a status update of the same state, message id and timestamp (stamped once, or
 * within one millisecond): named by those alone, every chunk after the first was skipped as a repeat of it, and
 * its words never pushed. A status that ends the turn keeps the status-only id (see `snapshotText`).
 */
function progressText(status: TaskStatus): string | undefined {
  if (isNotifiedState(status.state) || !status.message) return undefined;
  return JSON.stringify(status.message.parts);
}

/** The fallback: unique without coordination (`instance` is random per process), but no other process makes the same one. */
export const instanceEventId = (taskId: string, instance: string, seq: number): string => `${taskId}:${instance}-${seq}`;
