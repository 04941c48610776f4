import { eventTaskRef, type SendMessageResponse, type StreamResponse } from '../model/index.js';
import type { AdmittedPort, Entry } from './admission.js';
import { createOpenStreams } from './open-streams.js';
import { overlay } from './overlay.js';
import { readingOn } from './read-on.js';
import type { TaskEventHub } from './task-event-hub.js';

/**
 * Every task event that passes through published to in-process subscribers (the hub, task-event-hub.ts,
 * is the state this decorator shares with them). Like recording, only the first of two streams of one
 * task publishes (open-streams.ts), so a subscriber sees each event once; a task's subscriptions end
 * when no stream feeds it any more. Sits above recording: a published event is already folded.
 */
export function fanningOut(inner: AdmittedPort, hub: TaskEventHub): AdmittedPort {
  const openStreams = createOpenStreams();

  const published = (source: AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> =>
    openStreams.follow(
      source,
      (event) => hub.publish(event),
      (_led, unfollowed) => unfollowed.forEach((taskId) => hub.end(taskId)),
    );

  return overlay(inner, {
    async sendMessage(request, ctx, entry?: Entry): Promise<SendMessageResponse> {
      // The rest of a turn read on past its answer (read-on.ts) is published after the answer, and ends the task's subscriptions.
      const reading = readingOn(request, ctx, (rest) => (entry?.ridesAlong ? rest : published(rest)));
      try {
        const response = await inner.sendMessage(request, reading.ctx, entry);
        const { taskId } = eventTaskRef(response);
        if (taskId && !entry?.ridesAlong) {
          hub.publish(response);
          if (!openStreams.has(taskId) && !reading.handed()) hub.end(taskId);
        }
        return response;
      } finally {
        reading.answered();
      }
    },
    sendStreamingMessage: (request, ctx, entry?: Entry) => published(inner.sendStreamingMessage(request, ctx, entry)),
    subscribeToTask: (request, ctx) => published(inner.subscribeToTask(request, ctx)),
  });
}
