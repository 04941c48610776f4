import { randomUUID } from 'node:crypto';
import { isActiveState, type Message, type StreamResponse } from '../../model/index.js';
import { taskTurnEvents } from './reply/task-events.js';

/**
 * A turn the facade sent again in a fresh context (gone-task.ts: iac-code refuses the conversation's own for good)
 * reaches an agent that has none of the conversation's earlier turns, nor, at iac-code, the files it wrote then (the
 * fresh context has a folder of its own). A user who goes on with "now add a NAT gateway to it" would read an agent
 * that does not know what "it" is, and not why: so the reply of that turn opens with the facade's words that say so
 * (words.startedAfresh), once. Told as a working message of the turn's task, as a cut turn's rest is opened
 * (cut-turns.ts cutTurnRest): it goes through the reply reducer with the agent's events, so message/send and
 * message/stream show it alike. Not noted in the turn's tracker: it is no word of the agent's.
 */
export async function* withStartedAfreshTold(events: AsyncIterable<StreamResponse>, words: string): AsyncGenerator<StreamResponse> {
  const iterator = events[Symbol.asyncIterator]();
  try {
    const first = await iterator.next();
    if (first.done) return;
    yield* toldAround(first.value, words);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  } finally {
    await iterator.return?.();
  }
}

/**
 * The turn's first event with the words: after the agent's opening (a task that has not ended the turn), so that the
 * caller's stream opens as the agent opened it; before any other event, under the task it names. A turn answered in
 * one finished Task (a blocking call) is replayed as its events (reply/task-events.ts), the words after its opening:
 * they open its reply instead of following it.
 */
function toldAround(event: StreamResponse, words: string): StreamResponse[] {
  if ('task' in event) {
    const { task } = event;
    const told = toldEvent(task.id, task.contextId ?? task.id, words);
    if (isActiveState(task.status.state)) return [event, told];
    const [opening, ...rest] = taskTurnEvents(task);
    return opening ? [opening, told, ...rest] : [told, event];
  }
  const ref = 'statusUpdate' in event ? event.statusUpdate : 'artifactUpdate' in event ? event.artifactUpdate : undefined;
  return ref ? [toldEvent(ref.taskId, ref.contextId, words), event] : [event];
}

/** The words as a working message of the task, a paragraph of their own before what the agent says. */
function toldEvent(taskId: string, contextId: string, words: string): StreamResponse {
  const message: Message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: `${words}\n\n` }] };
  return { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING', message } } };
}
