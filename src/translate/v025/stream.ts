import { randomUUID } from 'node:crypto';
import { withFields, type StreamResponse } from '../../model/index.js';
import type { MappingProfile } from '../../mappings/index.js';
import type { V025StreamEvent } from '../../protocol/v025/index.js';
import { defined } from '../common.js';
import { streamEventToV1 } from './events.js';
import { answerOfTask, ofStreamTask, openingTaskOf, type StreamTask } from '../task-stream.js';

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
 * 0.2.5 upstream → 1.0 caller: `kind`/`final` stripped, enums and timestamps converted. A 1.0 stream
 * must start with a Task or be a single Message, while 0.2.5 may start with an update, so a Task is
 * synthesised from the first update (openingTaskOf, task-stream.ts).
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
      const translated = streamEventToV1(event, profile);
      const events: StreamResponse[] = [];
      if (!task && 'statusUpdate' in translated) events.push(openingTaskOf(translated.statusUpdate));
      if (!task && 'artifactUpdate' in translated) events.push(openingTaskOf(translated.artifactUpdate));
      task ??= event.kind === 'task' ? { taskId: event.id, contextId: event.contextId } : event.kind === 'message' ? undefined : event;
      events.push(inStream(translated, task));
      done = event.kind === 'message' || (event.kind === 'status-update' && event.final === true);
      return { events, done };
    },
    get done() {
      return done;
    },
  };
}
