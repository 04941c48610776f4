import type { Dispatcher } from 'undici';
import { A2AError } from '../model/index.js';

/**
 * A bound on how long a request waits for one of a capped pool's connections (`upstream.queue-timeout-ms`).
 *
 * undici queues a request past `connections` inside the pool, first come first served, with no timeout of its
 * own: its headers timeout starts only once the request is written, and the request's signal is read only
 * once it reaches a connection (abortable-request.ts). Every open stream holds a connection for its whole
 * life, so a few long streams (one client's turns and subscriptions) left every other call waiting for as
 * long as they ran. Here each request is given until undici hands it a connection (`onRequestStart`, the
 * moment it is about to be written; connecting included); past that its caller is answered at once with
 * A2AError.upstreamBusy, a refusal for now (503 / UNAVAILABLE with Retry-After) that nothing was sent. The
 * request stays in undici's queue, which cannot take it out: when it reaches a connection it is aborted
 * there, before a byte is written, as a request whose caller left is.
 *
 * The pool keeps its own queue rather than one in front of it: counting connections here would have to
 * mirror exactly when undici frees one (a body read to its end, destroyed, or never read), which a bound on
 * undici's own wait does not need to know.
 */
export function connectionWaitBound(ms: number, onRefused: () => void = () => undefined): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => dispatch(options, new BoundedWait(handler, ms, onRefused));
}

/** undici's header map (its own type, not exported under Dispatcher). */
type Headers = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];

/** What undici hands a handler that is given up on before it got a connection: nothing to pause or abort yet. */
const NO_CONTROLLER: Dispatcher.DispatchController = {
  aborted: true,
  paused: false,
  reason: null,
  abort: () => undefined,
  pause: () => undefined,
  resume: () => undefined,
};

/** One request's handler, passed through once it has its connection; given up on, told the refusal instead. */
class BoundedWait implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #timer: NodeJS.Timeout;
  readonly #onRefused: () => void;
  #state: 'waiting' | 'started' | 'refused' = 'waiting';

  constructor(inner: Dispatcher.DispatchHandler, ms: number, onRefused: () => void) {
    this.#inner = inner;
    this.#onRefused = onRefused;
    this.#timer = setTimeout(() => this.#refuse(), ms);
    this.#timer.unref();
  }

  #refuse(): void {
    if (this.#state !== 'waiting') return;
    this.#state = 'refused';
    this.#onRefused();
    this.#inner.onResponseError?.(NO_CONTROLLER, A2AError.upstreamBusy());
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    clearTimeout(this.#timer);
    // Its caller has its answer already: the request leaves the queue here, unwritten.
    if (this.#state === 'refused') return controller.abort(A2AError.upstreamBusy());
    this.#state = 'started';
    this.#inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Headers,
    socket: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[3],
  ): void {
    this.#inner.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Headers, statusMessage?: string): void {
    this.#inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: Headers): void {
    this.#inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    clearTimeout(this.#timer);
    // The refusal was its caller's answer: the abort that took the request out of the queue is not told again.
    if (this.#state === 'refused') return;
    this.#state = 'started';
    this.#inner.onResponseError?.(controller, error);
  }
}
