import type { Dispatcher } from 'undici';
import type { A2AError } from '../../model/index.js';
import { fromTransportError, streamWentIdle } from '../upstream-errors.js';

/**
 * When a relayed body that sends nothing for `ms` (`stream-idle-timeout-ms`) is given up: the agent froze with
 * its connection open. `lastWords`: what the caller reads then (a stream's error frame), or nothing (the body
 * just fails).
 */
export interface IdleRelay {
  ms: number;
  lastWords?: Uint8Array;
  /** Told when `lastWords` ended the stream. */
  cut?(error: A2AError): void;
  /** Without `lastWords`: RelayWatch.cutMidway. */
  cutMidway?(error: A2AError): boolean;
}

/** How a relayed body that breaks mid-way (the agent's connection reset or closed) ends. */
export interface BrokenRelay {
  /** Whether the caller left, cutting the body itself: then nothing broke. */
  callerLeft(): boolean;
  /** A stream's last words then: the relay's error frame, and the stream ends (a JSON answer just fails). */
  lastWords?(error: A2AError): Uint8Array;
  told?(error: A2AError): void;
  /** Without `lastWords`: RelayWatch.cutMidway. */
  cutMidway?(error: A2AError): boolean;
  /** Without `lastWords`: RelayWatch.ended. */
  ended?(failure?: A2AError): void;
}

const EVENT_END = new TextEncoder().encode('\n\n');

/** Whether a chunk of an SSE body ends with a blank line (LF or CRLF): the event before it is complete. */
function endsEvent(chunk: Uint8Array): boolean {
  const n = chunk.length;
  const LF = 0x0a;
  if (n >= 2 && chunk[n - 1] === LF && chunk[n - 2] === LF) return true;
  return n >= 4 && chunk[n - 1] === LF && chunk[n - 2] === 0x0d && chunk[n - 3] === LF && chunk[n - 4] === 0x0d;
}

/**
 * The undici body as a web stream that pulls chunk by chunk (no buffering) and destroys the body when
 * cancelled or gone quiet past `idle`. One timer for the body's life, pushed back by each pull; it gives up
 * only while a pull waits on the agent, so a caller slow to read is no silence of the agent's.
 */
export function webBody(body: Dispatcher.ResponseData['body'], idle?: IdleRelay, broken?: BrokenRelay): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  let quiet: NodeJS.Timeout | undefined;
  let waiting = false;
  let gaveUp = false;
  let cancelled = false;
  // Whether what was relayed so far ends an SSE event (a blank line), so that a frame of ours is one of its own.
  let betweenEvents = true;
  let ended = false;
  const end = (failure?: A2AError): void => {
    if (ended) return;
    ended = true;
    broken?.ended?.(failure);
  };
  const endWith = (controller: ReadableStreamDefaultController<Uint8Array>, lastWords: Uint8Array): void => {
    // An event the agent stopped in the middle of is ended (the caller drops it as malformed), not run into ours.
    if (!betweenEvents) controller.enqueue(EVENT_END);
    controller.enqueue(lastWords);
    controller.close();
  };
  const giveUp = (controller: ReadableStreamDefaultController<Uint8Array>, relay: IdleRelay): void => {
    // Between pulls the caller is the slow one: the watch goes on.
    if (!waiting) return void quiet?.refresh();
    gaveUp = true;
    body.destroy();
    if (!relay.lastWords) {
      const error = streamWentIdle(relay.ms);
      if (!relay.cutMidway?.(error)) controller.error(error);
      return end(error);
    }
    endWith(controller, relay.lastWords);
    relay.cut?.(streamWentIdle(relay.ms));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (idle && idle.ms > 0) {
        quiet ??= setTimeout(() => giveUp(controller, idle), idle.ms);
        quiet.refresh();
      }
      waiting = true;
      try {
        const next = (await chunks.next()) as IteratorResult<Buffer>;
        if (gaveUp) return;
        if (next.done) {
          clearTimeout(quiet);
          controller.close();
          end();
        } else {
          betweenEvents = endsEvent(next.value);
          controller.enqueue(next.value);
        }
      } catch (error) {
        clearTimeout(quiet);
        // Given up as quiet: the caller was answered already, and the destroyed body's failure is moot.
        if (gaveUp) return;
        if (cancelled || !broken || broken.callerLeft()) {
          end();
          return controller.error(error);
        }
        // A stream ends with the relay's error frame, as a translated one does, not cut with the transport's error
        // (which the HTTP server would print, stack and all, and append to the body as text).
        const failure = fromTransportError(error);
        broken.told?.(failure);
        const lastWords = broken.lastWords?.(failure);
        if (lastWords) endWith(controller, lastWords);
        else if (!broken.cutMidway?.(failure)) controller.error(error);
        end(failure);
      } finally {
        waiting = false;
      }
    },
    cancel() {
      cancelled = true;
      clearTimeout(quiet);
      body.destroy();
      end();
    },
  });
}
