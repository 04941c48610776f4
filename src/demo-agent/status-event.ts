import { withFields, type Message, type StreamResponse, type Task, type TaskState } from '../model/index.js';
import { statusTimestamp } from './clock.js';
import { taskStateNumber } from './task-store.js';

export interface StatusOptions {
  text?: string;
  messageId?: string;
  timestamp?: boolean;
  extra?: Record<string, unknown>;
}

/**
 * A statusUpdate as iac-code's executor writes it: session id in metadata.iac_code, an agent
 * message whose id is `<taskId>-<state number>` unless given, a timestamp only where iac-code sets one.
 */
export function statusEvent(task: Task, sessionId: string | undefined, state: TaskState, options: StatusOptions): StreamResponse {
  const { id: taskId, contextId = '' } = task;
  const message: Message | undefined =
    options.text === undefined
      ? undefined
      : {
          messageId: options.messageId ?? `${taskId}-${taskStateNumber(state)}`,
          contextId,
          taskId,
          role: 'ROLE_AGENT',
          parts: [{ text: options.text }],
        };
  return {
    statusUpdate: {
      taskId,
      contextId,
      status: { state, ...(message ? { message } : {}), ...(options.timestamp ? { timestamp: statusTimestamp() } : {}) },
      metadata: { iac_code: withFields(options.extra, { iacCodeSessionId: sessionId }) },
    },
  };
}
