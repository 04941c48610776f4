import type { SseFrame } from './sse-frames.js';

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
