import type { StreamResponse, Task } from '../model/index.js';
import { recordHoldsTurnEnd } from './turn-of-record.js';

/**
 * What a 0.2.5 body is made of: `task`, and whether it is the facade's tasks/get of it (`asTasksGet`, which for a
 * turn's end reads the agent's task as it is now) or the task translated as it stands.
 */
export interface V025Source {
  task: Task;
  asTasksGet: boolean;
}

const statusOf = (event: StreamResponse) => ('task' in event ? event.task.status : 'statusUpdate' in event ? event.statusUpdate.status : undefined);

/**
 * The task a 0.2.5 receiver is pushed for a change, read from the registry once the change settled (`recorded`).
 * By then the caller may have sent the next message: a turn's end read while the record holds another turn (the next
 * one at work, or ended in the same state: iac-code ends every turn input-required) would push that turn's state and
 * words under this change's event id, and the next turn's own end, reading the same, would be dropped as a repeat.
 * So a turn's end the record is not known to hold (turn-of-record.ts, as for a 1.0 receiver) is pushed as it came: a
 * blocking answer's Task as it is, a status update as a Task of that status alone (the words it carries, if any),
 * neither read again from the agent. A task the registry does not hold goes as before: a Task as it came, through the
 * facade; a status update is not pushed.
 */
export function v025Source(recorded: Task | undefined, event: StreamResponse, turnEnded: boolean, turnMessageId?: string): V025Source | undefined {
  const own = 'task' in event ? event.task : undefined;
  if (!recorded) return own ? { task: own, asTasksGet: true } : undefined;
  const status = statusOf(event);
  if (!turnEnded || !status || recordHoldsTurnEnd(recorded, status, turnMessageId)) return { task: recorded, asTasksGet: true };
  if (own) return { task: own, asTasksGet: false };
  const update = 'statusUpdate' in event ? event.statusUpdate : undefined;
  return {
    task: { id: recorded.id, contextId: update?.contextId ?? recorded.contextId, status, ...(update?.metadata ? { metadata: update.metadata } : {}) },
    asTasksGet: false,
  };
}
