import { A2AError } from '../../model/index.js';
import { frameText, keepAlive, type SseFrame } from './sse-frames.js';
import { untilShutdown } from './shutdown-watch.js';

export interface SseOptions {
  /** Interval of `: ping` comments that keep proxies and load balancers from cutting an idle stream; 0 disables. */
  keepaliveMs: number;
  /** The request's signal: its abort means the client is gone. */
  signal?: AbortSignal;
  /** Renders a failure of the source as the stream's last frames (a protocol error), or nothing. */
  onError(error: unknown): SseFrame | SseFrame[] | undefined;
  /** Called once when the stream is stopped before the source ended (client gone, shutdown): abort the upstream call here. */
  onCancel?(): void;
  /**
   * The gateway's shutdown signal: its abort ends the stream at once with `onError(reason)`'s frames,
   * so the caller learns the stream is over in its own protocol instead of seeing the socket drop.
   */
  shutdown?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * A comment written before any frame, e.g. while the upstream has accepted the call but sent
   * nothing yet: the client gets the headers and a first byte at once, not after a keep-alive interval.
   */
  comment?: string;
  /** A frame was written while its caller was there (the last of the text the writer read), as far as the writer can tell. */
  onWritten?(frame: SseFrame): void;
  /** Its caller hung up once the source had ended: frames it gave were never written, or were written as they left. */
  onLeftAtEnd?(): void;
}

/**
 * How a stream ended: `completed`, its source ended; `failed`, its source threw (`error`; its caller read the
 * frames onError rendered of it); `caller_left`, the client went away first; `shutdown`, the gateway's drain
 * ended it.
 */
export interface SseEnd {
  how: 'completed' | 'failed' | 'caller_left' | 'shutdown';
  /** Frames written: the source's and the last ones a failure or a shutdown rendered. */
  events: number;
  error?: unknown;
}

/** Told when the first event (not a comment) is handed out, and once when the stream is over however it ended. */
export interface SseObserver {
  firstEvent?(): void;
  /** Every frame handed out, the source's and the last ones a failure or a shutdown renders. */
  frame?(frame: SseFrame): void;
  end(how: SseEnd): void;
}

/**
 * One SSE stream, independent of where its bytes go: a web ReadableStream (sse.ts) or the Node
 * response itself (sse-direct.ts). The consumer pulls with read(); the source is pulled only then,
 * one frame at a time, so a slow client slows the source down. Keep-alives, the opening comment and a
 * shutdown's last frames are queued at any time and wake a waiting read.
 */
export class SseChannel {
  private readonly iterator: AsyncIterator<SseFrame>;
  private readonly queued: string[] = [];
  private finished = false;
  private closed = false;
  private pumping = false;
  private wake: (() => void) | undefined;
  private stopKeepalive: (() => void) | undefined;
  private stopWatchingShutdown: (() => void) | undefined;
  private readonly observers: SseObserver[] = [];
  /** The observers with a frame hook: none on most streams, so a frame costs one length check. */
  private readonly frameObservers: SseObserver[] = [];
  private sawEvent = false;
  /** How it ended, set with `finished`; the frames written (one increment a frame: the count is the end's, told once). */
  private readonly outcome: SseEnd = { how: 'completed', events: 0 };
  /** The last frame queued, then the last in the text handed to the writer: what `written` acknowledges. */
  private lastQueued: SseFrame | undefined;
  private handed: SseFrame | undefined;
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
    if (this.closed && this.queued.length === 0) observer.end(this.outcome);
    else {
      this.observers.push(observer);
      if (observer.frame) this.frameObservers.push(observer);
    }
  }

  /** The text to write next (everything queued), or null once the stream is over and drained. */
  async read(): Promise<string | null> {
    for (;;) {
      // One frame ahead: the source is asked for the next frame while this text is being written.
      if (!this.pumping && !this.finished) void this.pump();
      if (this.queued.length > 0) return this.take();
      if (this.closed) {
        this.ended();
        return null;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The consumer went away (reader cancelled, socket closed). */
  cancel(): void {
    this.disconnect();
    this.ended();
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
    const frame = this.handed;
    this.handed = undefined;
    return frame;
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
    if (this.finish('shutdown')) this.stop(this.renderError(this.options.shutdown?.reason).frames);
  };

  private async pump(): Promise<void> {
    this.pumping = true;
    let result: IteratorResult<SseFrame>;
    try {
      result = await this.iterator.next();
    } catch (error) {
      this.pumping = false;
      if (!this.finish('failed')) return;
      this.outcome.error = error;
      const rendered = this.renderError(error);
      if (rendered.broke) {
        // The stream's own error path failed: whatever it was to end upstream may not have run.
        this.stop(rendered.frames);
        return;
      }
      for (const frame of rendered.frames) this.write(frame);
      this.close();
      return;
    }
    this.pumping = false;
    if (this.finished) return;
    if (result.done) {
      this.finish('completed');
      this.close();
      return;
    }
    this.write(result.value);
    if (!this.sawEvent) {
      this.sawEvent = true;
      for (const observer of this.observers) observer.firstEvent?.();
    }
  }

  private write(frame: SseFrame): void {
    if (this.closed) return;
    this.queue(frameText(frame));
    this.lastQueued = frame;
    this.outcome.events++;
    for (const observer of this.frameObservers) observer.frame!(frame);
  }

  private queue(text: string): void {
    if (this.closed) return;
    this.queued.push(text);
    this.notify();
  }

  private take(): string {
    const text = this.queued.length === 1 ? this.queued[0]! : this.queued.join('');
    this.queued.length = 0;
    // A take of keep-alives alone leaves the frame handed before it to be acknowledged.
    if (this.lastQueued) {
      this.handed = this.lastQueued;
      this.lastQueued = undefined;
    }
    return text;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

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

  private ended(): void {
    const observers = this.observers.splice(0);
    this.frameObservers.length = 0;
    for (const observer of observers) observer.end(this.outcome);
  }

  /**
   * `onError`'s frames for `error`. Where rendering it throws (`broke`), the frames of a plain -32603
   * "Internal error" instead: the stream's own renderer, so still the caller's protocol, and nothing
   * of the failure; none only if that throws too.
   */
  private renderError(error: unknown): { frames: SseFrame[]; broke: boolean } {
    try {
      return { frames: this.render(error), broke: false };
    } catch {
      try {
        return { frames: this.render(A2AError.internal()), broke: true };
      } catch {
        return { frames: [], broke: true };
      }
    }
  }

  private render(error: unknown): SseFrame[] {
    const rendered = this.options.onError(error);
    return rendered === undefined ? [] : Array.isArray(rendered) ? rendered : [rendered];
  }
}
