import { withFields, type Message, type StreamResponse, type Task } from '../model/index.js';
import type { AgentPort } from './agent-port.js';
import { openingMessage } from './first-message.js';
import { deferIterable, mapIterable } from './iterables.js';
import { overlay } from './overlay.js';
import type { TaskStore } from './task-registry/types.js';

/**
 * A follow-up's stream (a message naming its task) opened with the task as the gateway recorded it, when
 * the agent's opening Task tells nothing of the task's past: a 0.2.5 agent starts such a stream with a
 * status-update, from which the translator can only make a Task of id, context and status
 * (translate/v025/stream.ts). An a2a-js 1.x agent opens it with the stored task, the follow-up message
 * last in its history, and so does this: the recorded history and artifacts, the follow-up, the agent's
 * status. Recording folds that Task over the record, which the bare one replaced, earlier turns lost.
 *
 * The record is read once, before the agent is asked: from then on the turn's own events are folded
 * over it. A record that cannot be read leaves the stream as the agent sent it.
 */
export function openingFollowUpsWithRecord(inner: AgentPort, registry: Pick<TaskStore, 'get'>): AgentPort {
  return overlay(inner, {
    sendStreamingMessage(request, ctx): AsyncIterable<StreamResponse> {
      const { message } = request;
      const taskId = message.taskId;
      if (!taskId) return inner.sendStreamingMessage(request, ctx);
      return deferIterable(async () => {
        const recorded = await registry.get(taskId, ctx.principal).catch(() => undefined);
        const events = inner.sendStreamingMessage(request, ctx);
        if (!recorded) return events;
        let opening = true;
        return mapIterable(events, (event) => {
          const first = opening;
          opening = false;
          return first && 'task' in event && event.task.id === taskId && toldNothingOfThePast(event.task)
            ? { task: recordedWith(recorded, event.task, message) }
            : event;
        });
      });
    },
  });
}

const toldNothingOfThePast = (task: Task): boolean => !task.history?.length && !task.artifacts?.length;

/**
 * The recorded task in the agent's opening state. Its status message (the question the follow-up answers)
 * moves into the history as a status change moves it (task-registry/fold.ts), then the follow-up, with the
 * task's ids, as the message that opened the task is recorded.
 */
function recordedWith(recorded: Task, opening: Task, followUp: Message): Task {
  const history = [...(recorded.history ?? [])];
  const said = (message: Message): boolean => history.some((earlier) => earlier.messageId === message.messageId);
  const question = recorded.status.message;
  if (question && !said(question)) history.push(question);
  if (!said(followUp)) history.push(openingMessage(followUp, recorded));
  return withFields(recorded, { status: opening.status, history, ...(opening.metadata ? { metadata: opening.metadata } : {}) });
}
