/**
 * `read` as a scrape asks it: answered within `withinMs` or not at all (undefined, as when it fails), so a
 * store that froze never holds a scrape. The sample is left out rather than the last value repeated: a
 * depth that stays flat through an outage would say the queue is fine; a missing sample says it is not
 * known, as a failed read already did, and the outage shows in a2a_bridge_redis_errors_total. One read at a
 * time: a scrape that comes while one is still unanswered waits on that one, so reads do not pile up
 * behind a Redis that does not answer.
 */
export function boundedReading<T>(read: () => Promise<T>, withinMs: number): () => Promise<T | undefined> {
  let pending: Promise<T | undefined> | undefined;
  return async () => {
    const current = (pending ??= read().then(
      (value) => value,
      () => undefined,
    ));
    void current.finally(() => {
      if (pending === current) pending = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, withinMs, undefined)));
    try {
      return await Promise.race([current, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}
