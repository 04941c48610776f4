import { A2AError, endsTurn, eventTaskRef, isTerminalState, type StreamResponse } from '../model/index.js';

/**
 * In-process fan-out of a task's events: every subscriber gets every event published after it
 * subscribed. A subscription ends after an event that ends the turn (terminal or INPUT_REQUIRED,
 * like iac-code's SubscribeToTask), when the stream feeding the task ends (`end`), or on abort. A Task
 * ends it only when terminal: an answer in the same task opens its stream with the task as it stands,
 * still INPUT_REQUIRED (a2a-js 1.x; iac-code's as the gateway opens it, stream-opening.ts), and goes on.
 */
export interface TaskEventHub {
  publish(event: StreamResponse): void;
  /** Ends every subscription of the task: the stream that fed it is gone. */
  end(taskId: string): void;
  /** Registers at once (events published before the first `next()` are kept). */
  subscribe(taskId: string, signal?: AbortSignal): AsyncIterableIterator<StreamResponse>;
  subscriberCount(taskId: string): number;
}

interface Subscriber {
  queue: StreamResponse[];
  closed: boolean;
  failure?: A2AError;
  wake?: () => void;
}

/** A subscriber this far behind is cut off rather than buffering without bound. */
const MAX_QUEUED = 1000;

function closes(event: StreamResponse): boolean {
  if ('statusUpdate' in event) return endsTurn(event.statusUpdate.status.state);
  if ('task' in event) return isTerminalState(event.task.status.state);
  return false;
}

export function createTaskEventHub(): TaskEventHub {
  const subscribers = new Map<string, Set<Subscriber>>();

  function close(subscriber: Subscriber, failure?: A2AError): void {
    subscriber.closed = true;
    if (failure) subscriber.failure = failure;
    subscriber.wake?.();
  }

  function end(taskId: string): void {
    const set = subscribers.get(taskId);
    if (!set) return;
    subscribers.delete(taskId);
    for (const subscriber of set) close(subscriber);
  }

  return {
    publish(event: StreamResponse): void {
      const { taskId } = eventTaskRef(event);
      const set = taskId === undefined ? undefined : subscribers.get(taskId);
      if (!taskId || !set) return;
      for (const subscriber of set) {
        if (subscriber.queue.length >= MAX_QUEUED) {
          set.delete(subscriber);
          close(subscriber, A2AError.internal('Subscriber fell too far behind the task'));
          continue;
        }
        subscriber.queue.push(event);
        subscriber.wake?.();
      }
      if (closes(event)) end(taskId);
    },

    end,

    subscribe(taskId: string, signal?: AbortSignal): AsyncIterableIterator<StreamResponse> {
      const subscriber: Subscriber = { queue: [], closed: false };
      let set = subscribers.get(taskId);
      if (!set) subscribers.set(taskId, (set = new Set()));
      set.add(subscriber);
      const onAbort = () => close(subscriber);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) close(subscriber);

      async function* iterate(): AsyncGenerator<StreamResponse> {
        try {
          for (;;) {
            const next = subscriber.queue.shift();
            if (next) {
              yield next;
              continue;
            }
            if (subscriber.failure) throw subscriber.failure;
            if (subscriber.closed) return;
            await new Promise<void>((resolve) => (subscriber.wake = resolve));
            subscriber.wake = undefined;
          }
        } finally {
          signal?.removeEventListener('abort', onAbort);
          const current = subscribers.get(taskId);
          current?.delete(subscriber);
          if (current?.size === 0) subscribers.delete(taskId);
        }
      }
      return iterate();
    },

    subscriberCount: (taskId) => subscribers.get(taskId)?.size ?? 0,
  };
}
