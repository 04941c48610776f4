/**
 * A signal that aborts when `parent` does or when `ms` have passed, whichever comes first, and `clear()` to
 * let go of both once the work is done.
 *
 * Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on Node 20 each holds the other only weakly
 * (the timeout's timer keeps no strong hold on its signal, `any` none on its sources), so a garbage
 * collection between the call and the timeout can drop the timeout, and the work then waits as long as
 * the other side does (seen: a route that never answered was waited on far past its bound). Here the
 * timer holds the controller, and the parent's listener is removed when cleared (`any` over a long-lived
 * parent also keeps every signal made from it).
 */
/** The longest a Node timer can wait (2^31-1 ms, about 24.8 days): a longer delay fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface TimedSignal {
  signal: AbortSignal;
  clear(): void;
}

const timeoutError = (): unknown => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

/** `timedOut`: the reason the signal aborts with at `ms` (fetch's TimeoutError unless told). */
export function timedSignal(parent: AbortSignal | undefined, ms: number, timedOut: () => unknown = timeoutError): TimedSignal {
  const controller = new AbortController();
  const onParent = (): void => controller.abort(parent?.reason);
  const timer = ms > 0 ? setTimeout(() => controller.abort(timedOut()), ms) : undefined;
  if (parent?.aborted) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
}
