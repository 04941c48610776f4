import { MAX_TIMER_MS } from '../timed-signal.js';

/** A follow's lifetime: ended by the follower's stop or by its timeout, whichever comes first. */
export function followLifetime(stopping: AbortSignal, timeoutMs: number): { signal: AbortSignal; timedOut(): boolean; letGo(): void; end(): void } {
  const controller = new AbortController();
  let timedOut = false;
  // Not AbortSignal.any: a signal derived from the long-lived `stopping` one would be kept as long as it.
  const onStop = (): void => controller.abort(stopping.reason);
  stopping.addEventListener('abort', onStop, { once: true });
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort(new DOMException('The push follow timed out', 'TimeoutError'));
    },
    Math.min(timeoutMs, MAX_TIMER_MS),
  );
  timer.unref();
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    letGo: () => controller.abort(new DOMException('Another replica follows this task now', 'AbortError')),
    end() {
      clearTimeout(timer);
      stopping.removeEventListener('abort', onStop);
    },
  };
}
