import { randomUUID } from 'node:crypto';
import { isActiveState, type Message, type StreamResponse } from '../../../model/index.js';
import { taskTurnEvents } from '../reply/task-events.js';

/**
 * A turn the facade sent again in a fresh context (gone-task.ts: iac-code refuses the conversation's own for good)
 * reaches an agent that has none of the conversation's earlier turns, nor, at iac-code, the files it wrote then (the
 * fresh context has a folder of its own). A user who goes on with "now add a NAT gateway to it" would read an agent
 * that does not know what "it" is, and not why: so the reply of that turn opens with the facade's words that say so
 * (words.startedAfresh), once. Told as a working message of the turn's task, as a cut turn's rest is opened
 * (cut-turns.ts cutTurnRest): it goes through the reply reducer with the agent's events, so message/send and
 * message/stream show it alike, and tasks/get, which replays the turn from its task, puts it in the same place
 * (startedAfreshToldIn, started-afresh-turns.ts). Noted in the turn's tracker as the facade's, not as a word of the
 * agent's (isStartedAfreshTold): a stream that showed it, its user hanging up before the agent said anything, is
 * not told it again with the turn's rest (watched-turn.ts).
 */

/** Where the words were told: the task of the fresh context, and the message that opened its turn there. */
export interface StartedAfreshAt {
  taskId: string;
  messageId: string;
}

/** What the turn notes of the words, each at its moment (fresh-context-turn.ts). */
export interface StartedAfreshNotes {
  /**
   * Awaited before anything of the turn goes out: its first frame names the fresh task, and tasks/get or
   * tasks/resubscribe of it, asked at once (on another replica too), must find the note (started-afresh-turns.ts).
   */
  noteTurn(at: StartedAfreshAt): Promise<void>;
  /**
   * As the event that tells them goes out, and not before: its turn's tracker notes it where its caller reads it, so a
   * caller who hung up after the opening's frame, before this one's, is told them with the turn's rest (watched-turn.ts).
   */
  noteTold(told: StreamResponse): void;
}

/**
 * The turn's events with the words told in them, noted by `at.told` (the turn, for tasks/get and a retry of its message;
 * the words' event, in its turn's tracker). Without `at`: a turn shown again whose note is made (tasks/resubscribe of it:
 * rejoined-turn.ts).
 */
export async function* withStartedAfreshTold(
  events: AsyncIterable<StreamResponse>,
  words: string,
  at?: { messageId: string; told?: StartedAfreshNotes | undefined },
): AsyncGenerator<StreamResponse> {
  const iterator = events[Symbol.asyncIterator]();
  try {
    const first = await iterator.next();
    if (first.done) return;
    const opening = toldAround(first.value, words);
    const told = opening.find(isStartedAfreshTold);
    const notes = at?.told;
    if (notes && told && 'statusUpdate' in told) await notes.noteTurn({ taskId: told.statusUpdate.taskId, messageId: at.messageId });
    for (const event of opening) {
      if (event === told) notes?.noteTold(event);
      yield event;
    }
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  } finally {
    await iterator.return?.();
  }
}

/** A turn's events replayed from its task (task-reply.ts), with the words where the turn itself told them. */
export function startedAfreshToldIn(events: readonly StreamResponse[], words: string): StreamResponse[] {
  const [first, ...rest] = events;
  return first ? [...toldAround(first, words), ...rest] : [];
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

/** The events that tell the words, told apart by themselves rather than by a mark a caller could be shown. */
const toldEvents = new WeakSet<StreamResponse>();

/** Whether `event` is the facade's words that the turn started afresh (not the agent's). */
export const isStartedAfreshTold = (event: StreamResponse): boolean => toldEvents.has(event);

/** The words as a working message of the task, a paragraph of their own before what the agent says. */
function toldEvent(taskId: string, contextId: string, words: string): StreamResponse {
  const message: Message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text: `${words}\n\n` }] };
  const told: StreamResponse = { statusUpdate: { taskId, contextId, status: { state: 'TASK_STATE_WORKING', message } } };
  toldEvents.add(told);
  return told;
}
