/**
 * Callbacks to run per shutdown signal when it fires: ONE listener on the long-lived signal for every
 * open call and stream instead of one each. Adding and removing an EventTarget listener is slow on
 * Node 20, and each one costs an open stream a few hundred bytes for as long as it lasts.
 */
const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/** Runs `onAbort` once when `shutdown` aborts (at once when it already has), unless the returned function was called before. */
export function untilShutdown(shutdown: AbortSignal, onAbort: () => void): () => boolean {
  if (shutdown.aborted) {
    onAbort();
    return () => false;
  }
  let callbacks = watchers.get(shutdown);
  if (!callbacks) {
    const all = new Set<() => void>();
    callbacks = all;
    watchers.set(shutdown, all);
    shutdown.addEventListener(
      'abort',
      () => {
        const pending = [...all];
        all.clear();
        for (const run of pending) run();
      },
      { once: true },
    );
  }
  const registered = callbacks;
  registered.add(onAbort);
  return () => registered.delete(onAbort);
}
