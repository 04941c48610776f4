import { randomUUID } from 'node:crypto';
import { withFields, type StreamResponse } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { V025StreamEvent } from '../../protocol/v025/index.js';
import { defined } from '../common.js';
import { streamEventToV1 } from './events.js';
import { answerOfTask, ofStreamTask, type StreamTask } from '../task-stream.js';
import { toRfc3339Utc } from '../timestamps.js';

/** An update of a task: what a 0.2.5 stream may open with in place of the Task. */
type V025TaskUpdate = Extract<V025StreamEvent, { kind: 'status-update' | 'artifact-update' }>;

export interface V025ToV1StreamOptions {
  profile: MappingProfile;
  /** contextId for a server Message that has none (1.0 requires one on server messages); default a new UUID. */
  contextId?: string;
}

export interface V025ToV1StreamTranslator {
  /** `done: true` means the 0.2.5 stream is over (final status or a message): close the 1.0 stream. */
  push(event: V025StreamEvent): { events: StreamResponse[]; done: boolean };
  readonly done: boolean;
}

/**
 * The Task a stream that opens with an update opens with: the ids, SUBMITTED (at the update's time), as a native
 * 1.0 agent opens each turn, a follow-up's too; the update, relayed next, says what became of it. A Task made of
 * the update's status said its message, and the update said it again: a client showed it twice.
 */
function openingTaskOf(update: V025TaskUpdate): StreamResponse {
  const at = update.kind === 'status-update' ? update.status.timestamp : undefined;
  const status = defined({ state: 'TASK_STATE_SUBMITTED' as const, timestamp: at === undefined ? undefined : toRfc3339Utc(at) });
  return { task: { id: update.taskId, contextId: update.contextId, status } };
}

/**
 * 0.2.5 upstream → 1.0 caller: `kind`/`final` stripped, enums and timestamps converted. A 1.0 stream
 * must start with a Task or be a single Message, while 0.2.5 may start with an update, so a Task is
 * synthesised from the first update (openingTaskOf).
 */
export function createV025ToV1StreamTranslator(options: V025ToV1StreamOptions): V025ToV1StreamTranslator {
  const { profile } = options;
  let task: StreamTask | undefined;
  let done = false;

  /** The event as a 1.0 stream about `task` (none yet: a direct Message) carries it (task-stream.ts). */
  function inStream(translated: StreamResponse, task: StreamTask | undefined): StreamResponse {
    if ('message' in translated) {
      if (task) return answerOfTask(task, translated.message);
      const contextId = translated.message.contextId || options.contextId || randomUUID();
      return { message: defined(withFields(translated.message, { contextId })) };
    }
    if (task && 'statusUpdate' in translated) return { statusUpdate: ofStreamTask(task, translated.statusUpdate) };
    if (task && 'artifactUpdate' in translated) return { artifactUpdate: ofStreamTask(task, translated.artifactUpdate) };
    return translated;
  }

  return {
    push(event) {
      if (done) return { events: [], done };
      const events: StreamResponse[] = [];
      if (!task && (event.kind === 'status-update' || event.kind === 'artifact-update')) events.push(openingTaskOf(event));
      task ??= event.kind === 'task' ? { taskId: event.id, contextId: event.contextId } : event.kind === 'message' ? undefined : event;
      events.push(inStream(streamEventToV1(event, profile), task));
      done = event.kind === 'message' || (event.kind === 'status-update' && event.final === true);
      return { events, done };
    },
    get done() {
      return done;
    },
  };
}
