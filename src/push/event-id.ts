import { createHash } from 'node:crypto';
import type { StreamResponse, TaskStatus } from '../model/index.js';

/** The status an event reports; undefined for artifact updates and messages. */
export function eventStatus(event: StreamResponse): TaskStatus | undefined {
  if ('task' in event) return event.task.status;
  if ('statusUpdate' in event) return event.statusUpdate.status;
  return undefined;
}

/**
 * The `A2A-Event-Id` of a status change that every replica, and a restarted process, derives alike:
 * `<taskId>:<hash>` of the task id, the state, the status timestamp and the status message's id, so
 * the statusUpdate a stream relays and the Task a follow reads afterwards name one change by one id.
 * Undefined when the status has no timestamp, and for artifact updates: nothing in them then tells
 * two changes apart (a second turn ending in the same state would get the id of the first).
 * The prefix is the task id as the event names it; a 0.2.5 receiver's id swaps it for the caller's.
 */
export function stableEventId(taskId: string, event: StreamResponse): string | undefined {
  const status = eventStatus(event);
  if (!status?.timestamp) return undefined;
  const digest = createHash('sha256')
    .update(JSON.stringify([taskId, status.state, status.timestamp, status.message?.messageId ?? null]))
    .digest('hex')
    .slice(0, 32);
  return `${taskId}:${digest}`;
}

/** The fallback: unique without coordination (`instance` is random per process), but no other process makes the same one. */
export const instanceEventId = (taskId: string, instance: string, seq: number): string => `${taskId}:${instance}-${seq}`;
