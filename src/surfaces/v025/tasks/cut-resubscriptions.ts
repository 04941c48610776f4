import { randomUUID } from 'node:crypto';
import { eventTaskRef, type Message, type StreamResponse } from '../../../model/index.js';
import type { CutTurnNotes } from '../notes/cut-turn-notes.js';
import { watchedTurn, type WatchedTurn } from '../recovery/watched-turn.js';

/**
 * A `tasks/resubscribe` stream the gateway's shutdown cut is a cut turn like a message's (cut-turns.ts): its user
 * was told (words.turnCutByShutdown) that their next message in the conversation shows what the task said
 * after the cut, so the task is noted with what the stream showed. The stream shows the task from where it
 * subscribed: the task as its first event (the snapshot) held it is where the rest starts, as the task before
 * a turn is (turn-rest.ts restCursor); no message was sent, so the turn is read as following up that task.
 */
export function watchedResubscription(
  conversation: { principal: string; contextId: string | undefined },
  notes: CutTurnNotes,
  shutdown: AbortSignal | undefined,
): { events(source: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse>; end(): void } {
  let watched: WatchedTurn | undefined;
  const watch = (event: StreamResponse): WatchedTurn => {
    const { taskId, contextId } = eventTaskRef(event);
    // Matched by no message of the task's: the turn starts where the snapshot ends.
    const sent: Message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [], ...(taskId ? { taskId } : {}) };
    const previous = 'task' in event ? event.task : undefined;
    return watchedTurn({ principal: conversation.principal, contextId: conversation.contextId ?? contextId }, notes, shutdown, {
      sent,
      previous,
    });
  };
  return {
    async *events(source) {
      for await (const event of source) {
        watched ??= watch(event);
        watched.tracker.note(event);
        yield event;
      }
    },
    end: () => watched?.end(),
  };
}
