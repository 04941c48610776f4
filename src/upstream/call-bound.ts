import { EventEmitter } from 'node:events';

/**
 * The abort undici watches for one unary call: the caller's signal or the whole-call timer, whichever
 * fires first. undici accepts an EventEmitter with `aborted`/`reason` as a request signal, so a call
 * needs no AbortController of its own nor an `AbortSignal.any`: on Node 20 each AbortSignal costs
 * more than the rest of a call's bookkeeping, and `AbortSignal.any` over a long-lived signal leaks.
 */
export class CallBound extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  /** The whole-call timer fired (not the caller). */
  timedOut = false;
  readonly #caller: AbortSignal;
  readonly #timer: NodeJS.Timeout;
  readonly #onCallerAbort = (): void => this.#abort(this.#caller.reason);

  constructor(caller: AbortSignal, ms: number) {
    super();
    this.#caller = caller;
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#abort(new DOMException('Upstream call timed out', 'TimeoutError'));
    }, ms);
    this.#timer.unref();
    if (caller.aborted) this.#abort(caller.reason);
    else caller.addEventListener('abort', this.#onCallerAbort, { once: true });
  }

  /** Stops the timer and lets go of the caller's signal; call it once the call settled. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#caller.removeEventListener('abort', this.#onCallerAbort);
  }

  #abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.clear();
    this.emit('abort');
  }
}
