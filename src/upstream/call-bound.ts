type Listener = () => void;

/**
 * The abort undici watches for one unary call: the caller's signal or the whole-call timer, whichever
 * fires first. undici takes any object with `on`/`once`/`removeListener`, `aborted` and `reason` as a
 * request signal, so a call needs no AbortController of its own, no `AbortSignal.any` (which leaks over
 * a long-lived signal) and no EventEmitter: undici adds one listener per request, so a list of
 * listeners is all this keeps. On Node 20 an AbortSignal or an EventEmitter costs more to make than
 * the rest of a call's bookkeeping (measured: this class was 3 % of a blocking call as an EventEmitter).
 */
export class CallBound {
  aborted = false;
  reason: unknown = undefined;
  /** The whole-call timer fired (not the caller). */
  timedOut = false;
  private listeners: Listener[] = [];
  private readonly caller: AbortSignal;
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort = (): void => this.abort(this.caller.reason);

  constructor(caller: AbortSignal, ms: number) {
    this.caller = caller;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.abort(new DOMException('Upstream call timed out', 'TimeoutError'));
    }, ms);
    this.timer.unref();
    if (caller.aborted) this.abort(caller.reason);
    else caller.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** `event` is always 'abort'; each listener is called once, when the call is aborted. */
  on(_event: 'abort', listener: Listener): this {
    this.listeners.push(listener);
    return this;
  }

  once(event: 'abort', listener: Listener): this {
    return this.on(event, listener);
  }

  removeListener(_event: 'abort', listener: Listener): this {
    const at = this.listeners.indexOf(listener);
    if (at >= 0) this.listeners.splice(at, 1);
    return this;
  }

  /** Stops the timer and lets go of the caller's signal; call it once the call settled. */
  clear(): void {
    clearTimeout(this.timer);
    this.caller.removeEventListener('abort', this.onCallerAbort);
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.clear();
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}
