import type { StreamResponse, TaskStatus } from '../../model/index.js';

/**
 * Why iac-code refuses a turn before it did anything: it forgot what the message went to, a conversation left idle
 * (docs/iac-code.md, "Idle eviction"): the task ("A2A task expired") or the context itself ("ValueError: A2A
 * context expired"); or the context is bound to another folder than the one the turn names ("ValueError: A2A
 * context belongs to a different workspace": a conversation begun before `upstream.workspace-root` was turned on,
 * docs/iac-code.md, "Workspaces"). Each comes as a FAILED status whose only words are that reason, on the task the
 * message went to, before the turn did anything: the message was not read. A context refused so takes no turn again.
 */
export type Refusal = 'task' | 'context' | 'workspace';

/** iac-code's reasons, with or without the exception's class name in front (its versions differ), never translated. */
const REASONS: ReadonlyArray<[RegExp, Refusal]> = [
  [/^(?:ValueError: )?A2A task expired\.?$/, 'task'],
  [/^(?:ValueError: )?A2A context expired\.?$/, 'context'],
  [/^(?:ValueError: )?A2A context belongs to a different workspace\.?$/, 'workspace'],
];

/** The one text a status says, or undefined when it says nothing or more than one part. */
export function statusText(status: TaskStatus | undefined): string | undefined {
  const parts = status?.message?.parts ?? [];
  const [only] = parts;
  return parts.length === 1 && typeof only?.text === 'string' ? only.text.trim() : undefined;
}

/** Which of the reasons a status gives, if it is FAILED for one of them. */
export function refusalOf(status: TaskStatus | undefined): Refusal | undefined {
  if (status?.state !== 'TASK_STATE_FAILED') return undefined;
  const text = statusText(status);
  return text === undefined ? undefined : REASONS.find(([reason]) => reason.test(text))?.[1];
}

/** Which of them an event reports for the task `taskId` (a status update, or the task a blocking call answered). */
export function eventRefusal(event: StreamResponse, taskId: string | undefined): Refusal | undefined {
  if ('statusUpdate' in event) return taskId === undefined || event.statusUpdate.taskId === taskId ? refusalOf(event.statusUpdate.status) : undefined;
  if ('task' in event) return taskId === undefined || event.task.id === taskId ? refusalOf(event.task.status) : undefined;
  return undefined;
}
