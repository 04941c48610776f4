import type { StreamResponse, TaskStatus } from '../../model/index.js';

/**
 * What iac-code forgot of a conversation left idle (docs/iac-code.md, "Idle eviction"): the task a message
 * went to ("A2A task expired"), or the context itself ("ValueError: A2A context expired"). Both come as a
 * FAILED status whose only words are that reason, on the task the message went to, before the turn did
 * anything: the message was not read.
 */
export type Expired = 'task' | 'context';

/** iac-code's reasons, with or without the exception's class name in front (its versions differ), never translated. */
const REASONS: ReadonlyArray<[RegExp, Expired]> = [
  [/^(?:ValueError: )?A2A task expired\.?$/, 'task'],
  [/^(?:ValueError: )?A2A context expired\.?$/, 'context'],
];

/** The one text a status says, or undefined when it says nothing or more than one part. */
function statusText(status: TaskStatus | undefined): string | undefined {
  const parts = status?.message?.parts ?? [];
  const [only] = parts;
  return parts.length === 1 && typeof only?.text === 'string' ? only.text.trim() : undefined;
}

/** Which of the two reasons a status gives, if it is FAILED for one of them. */
export function expiryOf(status: TaskStatus | undefined): Expired | undefined {
  if (status?.state !== 'TASK_STATE_FAILED') return undefined;
  const text = statusText(status);
  return text === undefined ? undefined : REASONS.find(([reason]) => reason.test(text))?.[1];
}

/** Which of the two an event reports for the task `taskId` (a status update, or the task a blocking call answered). */
export function eventExpiry(event: StreamResponse, taskId: string | undefined): Expired | undefined {
  if ('statusUpdate' in event) return taskId === undefined || event.statusUpdate.taskId === taskId ? expiryOf(event.statusUpdate.status) : undefined;
  if ('task' in event) return taskId === undefined || event.task.id === taskId ? expiryOf(event.task.status) : undefined;
  return undefined;
}
