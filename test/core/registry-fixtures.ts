/**
 * What the TaskRegistry contract (registry-contract.ts) writes and reads: two owners, tasks and the
 * events folded into them.
 */
import type { Message, StreamResponse, Task, TaskState } from '../../src/model/index.js';
import type { TaskMeta } from '../../src/core/task-registry/types.js';

export const ALICE: TaskMeta = { owner: 'basic:alice', upstream: 'up' };
export const BOB: TaskMeta = { owner: 'basic:bob', upstream: 'up' };

export const agentMessage = (taskId: string, text: string, messageId = `${taskId}-message`): Message => ({
  messageId,
  role: 'ROLE_AGENT',
  taskId,
  parts: [{ text }],
});

export function taskOf(id: string, options: { contextId?: string; state?: TaskState; timestamp?: string; history?: Message[] } = {}): Task {
  const task: Task = { id, contextId: options.contextId ?? 'ctx-1', status: { state: options.state ?? 'TASK_STATE_WORKING' } };
  if (options.timestamp) task.status.timestamp = options.timestamp;
  if (options.history) task.history = options.history;
  return task;
}

export const status = (
  taskId: string,
  state: TaskState,
  extra: { message?: Message; timestamp?: string; metadata?: Record<string, unknown> } = {},
): StreamResponse => ({
  statusUpdate: {
    taskId,
    contextId: 'ctx-1',
    status: { state, ...(extra.message ? { message: extra.message } : {}), ...(extra.timestamp ? { timestamp: extra.timestamp } : {}) },
    ...(extra.metadata ? { metadata: extra.metadata } : {}),
  },
});
