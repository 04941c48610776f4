import { randomUUID } from 'node:crypto';
import { endsTurn, isTerminalState, type StreamResponse } from '../../model/index.js';
import type { V03StreamResponse } from '../../protocol/v03/rest.js';
import { answerOfTask, ofStreamTask, openingTaskOf, type StreamTask } from '../task-stream.js';
import { streamResponseFromV03 } from './rest.js';

export interface V03RestToV1StreamOptions {
  /** contextId for a server message or update without one; default the first Task's, else a new UUID. */
  contextId?: string;
  /** The caller has sent the leading Task already (SubscribeToTask sends its snapshot first). */
  started?: boolean;
  /** The message continues a task (it named one): the stream may open with that task as it stands, waiting for this answer. */
  continues?: boolean;
}

export interface V03RestToV1StreamTranslator {
  /** `done: true`: the 0.3 turn is over (a `final` event, a message, or a state that ends the turn); close the 1.0 stream. */
  push(event: V03StreamResponse): { events: StreamResponse[]; done: boolean };
  readonly done: boolean;
}

/** The event as a 1.0 stream about `task` carries it (task-stream.ts). */
function inStream(event: StreamResponse, task: StreamTask | undefined): StreamResponse {
  if (!task) return event;
  if ('message' in event) return answerOfTask(task, event.message);
  if ('statusUpdate' in event) return { statusUpdate: ofStreamTask(task, event.statusUpdate) };
  if ('artifactUpdate' in event) return { artifactUpdate: ofStreamTask(task, event.artifactUpdate) };
  return event;
}

/**
 * 0.3 HTTP+JSON stream → 1.0 stream. A 1.0 stream is one Message, or a Task followed by updates;
 * a 0.3 agent may open with an update, so a Task is synthesised from it (openingTaskOf: the ids and
 * SUBMITTED, as the 0.2.5 translator does). The stream ends after `final: true`, a message, a status-update in a
 * state that ends the turn in 1.0 (terminal or input-required: a producer that leaves `final` out has nothing to add
 * after one either); a continuation's opening Task only in a terminal state.
 */
export function createV03RestToV1StreamTranslator(options: V03RestToV1StreamOptions = {}): V03RestToV1StreamTranslator {
  let started = options.started ?? false;
  /** No event came yet: a continuation's opening Task is where its task stood. */
  let opening = true;
  /** The task the stream is about, once an event named it (task-stream.ts). */
  let task: StreamTask | undefined;
  let done = false;
  let contextId = options.contextId;

  return {
    push(response) {
      if (done) return { events: [], done };
      if (response.task?.contextId) contextId ??= response.task.contextId;
      contextId ??= randomUUID();
      const { event, final } = streamResponseFromV03(response, contextId);
      const events: StreamResponse[] = [];
      if (!started && 'statusUpdate' in event) events.push(openingTaskOf(event.statusUpdate));
      if (!started && 'artifactUpdate' in event) events.push(openingTaskOf(event.artifactUpdate));
      started = true;
      if ('task' in event) task ??= { taskId: event.task.id, contextId: event.task.contextId ?? contextId };
      else if (!('message' in event)) task ??= 'statusUpdate' in event ? event.statusUpdate : event.artifactUpdate;
      events.push(inStream(event, task));
      // A continuation may open with its task as it stands, still INPUT_REQUIRED (a2a-js 1.x serving 0.3: its streams
      // must open with a Task), and then answer: only a terminal state ends it there. Any other waiting Task is the
      // agent's answer (a new task's question), after which an a2a-js agent holds its stream open.
      const state = 'task' in event ? event.task.status.state : 'statusUpdate' in event ? event.statusUpdate.status.state : undefined;
      const standing = 'task' in event && opening && options.continues === true;
      opening = false;
      const ends = state !== undefined && (standing ? isTerminalState(state) : endsTurn(state));
      done = final || 'message' in event || ends;
      return { events, done };
    },
    get done() {
      return done;
    },
  };
}
