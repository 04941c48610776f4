import { frameText, keepAlive, type SseFrame } from './sse-frames.js';
import type { SseEnd, SseObserver, SseOptions } from './sse-channel-types.js';
import { errorFrames } from './sse-error-frames.js';
import { SseObservers } from './sse-observers.js';
import { SseOutbox } from './sse-outbox.js';
import { untilShutdown } from './shutdown-watch.js';

export type { SseEnd, SseObserver, SseOptions };

/** The wake-ups' microtask (sse-reader.ts has the same): a reaction to one settled promise, no `AsyncResource` per wake-up. */
const settled = Promise.resolve();

/**
 * One SSE stream, independent of where its bytes go: a web ReadableStream (sse.ts) or the Node
 * response itself (sse-direct.ts). The consumer pulls with read(); the source is pulled only then,
 * one frame at a time, so a slow client slows the source down. Keep-alives, the opening comment and a
 * shutdown's last frames are queued at any time and wake a waiting read.
 */
export class SseChannel {
  private readonly iterator: AsyncIterator<SseFrame>;
  private readonly outbox = new SseOutbox();
  private finished = false;
  private closed = false;
  private pumping = false;
  /** The pending read's resolve: set while the consumer waits for text. */
  private reader: ((text: string | null) => void) | undefined;
  private delivering = false;
  private stopKeepalive: (() => void) | undefined;
  private stopWatchingShutdown: (() => void) | undefined;
  private readonly observers = new SseObservers();
  /** How it ended, set with `finished`; the frames written (one increment a frame: the count is the end's, told once). */
  private readonly outcome: SseEnd = { how: 'completed', events: 0 };
  private leftTold = false;
  /** Set by the consumer that takes the stream: only one may. */
  claimed = false;

  constructor(
    frames: AsyncIterable<SseFrame>,
    private readonly options: SseOptions,
  ) {
    this.iterator = frames[Symbol.asyncIterator]();
    const { signal, shutdown } = options;
    if (signal?.aborted) {
      this.disconnect();
      return;
    }
    if (shutdown?.aborted) {
      this.interrupt();
      return;
    }
    signal?.addEventListener('abort', this.disconnect, { once: true });
    if (shutdown) this.stopWatchingShutdown = untilShutdown(shutdown, this.interrupt);
    if (options.comment !== undefined) this.queue(`: ${options.comment.replace(/[\r\n]/g, ' ')}\n\n`);
    if (options.keepaliveMs > 0) this.stopKeepalive = keepAlive(options.keepaliveMs, this.ping);
  }

  observe(observer: SseObserver): void {
    if (this.closed && this.outbox.empty) observer.end(this.outcome);
    else this.observers.add(observer);
  }

  /**
   * The text to write next (everything queued), or null once the stream is over and drained. Not an async loop: an
   * idle stream's reader waits here, and a pending promise alone costs it less than a suspended frame.
   */
  read(): Promise<string | null> {
    const text = this.take();
    if (text !== undefined) return Promise.resolve(text);
    return new Promise((resolve) => (this.reader = resolve));
  }

  /** What read() hands out now, undefined when there is nothing yet. */
  private take(): string | null | undefined {
    // One frame ahead: the source is asked for the next frame while this text is being written.
    if (!this.pumping && !this.finished) this.pump();
    if (!this.outbox.empty) return this.outbox.take();
    if (!this.closed) return undefined;
    this.observers.end(this.outcome);
    return null;
  }

  /** The consumer went away (reader cancelled, socket closed). */
  cancel(): void {
    this.disconnect();
    this.observers.end(this.outcome);
  }

  /** Whether anything is told of the frames written (a facade stream): a writer that need not tell checks nothing per write. */
  get acknowledges(): boolean {
    return this.options.onWritten !== undefined;
  }

  /** The text last read was written, its caller still there as far as the writer can tell. */
  written(): void {
    const frame = this.takeWritten();
    if (frame) this.acknowledge(frame);
  }

  /** The last frame of the text read since this was last asked, if any: the writer acknowledges it once it can tell. */
  takeWritten(): SseFrame | undefined {
    return this.outbox.takeHanded();
  }

  /** `frame` (and every one before it) was written while its caller was there. */
  acknowledge(frame: SseFrame): void {
    this.options.onWritten?.(frame);
  }

  /**
   * The caller hung up, seen by the writer (at a write, or by the connection's end): the stream stops; when its
   * source had already ended, onLeftAtEnd says so (once).
   */
  callerLeft(): void {
    const sourceEnded = this.finished && this.outcome.how !== 'caller_left';
    this.cancel();
    if (!sourceEnded || this.leftTold) return;
    this.leftTold = true;
    this.options.onLeftAtEnd?.();
  }

  private readonly ping = (text: string): void => this.queue(text);

  private readonly disconnect = (): void => {
    if (this.finish('caller_left')) this.stop([]);
  };

  // Rendered before onCancel runs, while the dialect's view of the stream is still the one the caller saw.
  private readonly interrupt = (): void => {
    if (this.finish('shutdown')) this.stop(errorFrames(this.options, this.options.shutdown?.reason).frames);
  };

  /** Asks the source for its next frame; then(), not an async function, for the same reason as read(). */
  private pump(): void {
    this.pumping = true;
    let next: Promise<IteratorResult<SseFrame>>;
    try {
      next = this.iterator.next();
    } catch (error) {
      next = Promise.reject(error);
    }
    next.then(
      (result) => this.pumped(result),
      (error: unknown) => this.pumpFailed(error),
    );
  }

  private pumpFailed(error: unknown): void {
    this.pumping = false;
    if (!this.finish('failed')) return;
    this.outcome.error = error;
    const rendered = errorFrames(this.options, error);
    if (rendered.broke) {
      // The stream's own error path failed: whatever it was to end upstream may not have run.
      this.stop(rendered.frames);
      return;
    }
    for (const frame of rendered.frames) this.write(frame);
    this.close();
  }

  private pumped(result: IteratorResult<SseFrame>): void {
    this.pumping = false;
    if (this.finished) return;
    if (result.done) {
      this.finish('completed');
      this.close();
      return;
    }
    this.write(result.value);
    this.observers.event();
  }

  private write(frame: SseFrame): void {
    if (this.closed) return;
    this.queue(frameText(frame), frame);
    this.outcome.events++;
    this.observers.frame(frame);
  }

  private queue(text: string, frame?: SseFrame): void {
    if (this.closed) return;
    this.outbox.push(text, frame);
    this.notify();
  }

  private notify(): void {
    if (!this.reader || this.delivering) return;
    this.delivering = true;
    // A microtask later, as an awaiting loop would resume: what is queued in this same turn goes out in the same text.
    void settled.then(this.deliver);
  }

  /**
   * Only an observer's `end` (in `take`) can throw here. The stream still ends for its writer, and the throw rejects
   * the reaction's promise: an unhandled rejection that serve.ts logs, not an uncaught exception ending the gateway.
   */
  private readonly deliver = (): void => {
    this.delivering = false;
    const reader = this.reader;
    if (!reader) return;
    let text: string | null | undefined;
    try {
      text = this.take();
    } catch (error) {
      this.reader = undefined;
      reader(null);
      throw error;
    }
    if (text === undefined) return;
    this.reader = undefined;
    reader(text);
  };

  private close(): void {
    this.closed = true;
    this.notify();
  }

  private finish(how: SseEnd['how']): boolean {
    if (this.finished) return false;
    this.finished = true;
    this.outcome.how = how;
    this.stopKeepalive?.();
    this.options.signal?.removeEventListener('abort', this.disconnect);
    this.stopWatchingShutdown?.();
    return true;
  }

  /** Ends the stream before the source did: last frames, then the upstream call is aborted and the source returned. */
  private stop(lastFrames: SseFrame[]): void {
    this.options.onCancel?.();
    // An async generator queues return() behind a pending next(): onCancel is what interrupts that wait.
    Promise.resolve()
      .then(() => this.iterator.return?.())
      .catch(() => undefined);
    for (const frame of lastFrames) this.write(frame);
    this.close();
  }
}
