import type { Message, StreamResponse, Task } from '../model/index.js';
import { openingTaskOf } from '../translate/index.js';
import type { AgentPort } from './agent-port.js';
import { followedRecordOf } from './followed-record.js';
import { followUpTask } from './follow-up-task.js';
import { deferIterable, reshapeFirst } from './iterables.js';
import { overlay } from './overlay.js';
import type { TaskStore } from './task-registry/types.js';

/**
 * Every SendStreamingMessage stream opens with a Task or a Message, as A2A 1.0 wants it (§3.1.2): a2a-python's
 * client fails a stream that opens otherwise ("Expected first streaming event to be a Task or Message"), and
 * a2a-js 1.x's server holds its own agents to it. iac-code sends its Task only for a new task: a follow-up (a
 * message naming its task, every answer to a turn that ended INPUT_REQUIRED) opens with a status update. An
 * update first gets a Task put in front of it by the rule the 0.2.5 translator follows (openingTaskOf: the ids,
 * SUBMITTED at the update's time, as a native 1.0 agent opens a turn; the update then says what became of it);
 * a follow-up's is the task as recorded (follow-up-task.ts), as is an opening Task of the ids alone.
 *
 * Only the first event is looked at. The record is read once, before the agent is asked, unless admission read it
 * once it held the turn's lane (CallContext.followedRecord); a record that cannot be read leaves a follow-up's
 * stream as the agent sent it: a Task of the ids alone, recorded over the task, would take its earlier turns away.
 */
export function streamsOpeningWithTask(inner: AgentPort, registry: Pick<TaskStore, 'get'>): AgentPort {
  return overlay(inner, {
    sendStreamingMessage(request, ctx): AsyncIterable<StreamResponse> {
      const { message } = request;
      const taskId = message.taskId;
      if (!taskId) return reshapeFirst(inner.sendStreamingMessage(request, ctx), (first) => opened(first));
      return deferIterable(async () => {
        const handed = followedRecordOf(ctx, taskId);
        const held = handed && { task: handed };
        const read =
          held ??
          (await registry.get(taskId, ctx.principal).then(
            (task) => ({ task }),
            () => undefined,
          ));
        const events = inner.sendStreamingMessage(request, ctx);
        if (!read) return events;
        const { task: recorded } = read;
        return reshapeFirst(events, (first) => opened(first, recorded && { recorded, message }));
      });
    },
  });
}

/** A stream's first event as the stream opens: an update with its Task in front, a follow-up's Task as recorded. */
function opened(first: StreamResponse, followUp?: { recorded: Task; message: Message }): readonly StreamResponse[] {
  const update = 'statusUpdate' in first ? first.statusUpdate : 'artifactUpdate' in first ? first.artifactUpdate : undefined;
  const opening = update ? openingTaskOf(update).task : 'task' in first ? first.task : undefined;
  // A Message, or iac-code's empty result: nothing to open a task with.
  if (!opening) return [first];
  const task = (followUp && followUpTask(followUp.recorded, opening, followUp.message)) ?? opening;
  if (update) return [{ task }, first];
  return task === opening ? [first] : [{ task }];
}
