import type { EntryLeases } from './redis-leases.js';
import type { PushLogger } from './types.js';

/**
 * Renews the held entries' leases on a timer of its own: the Redis Streams queue's worker loop
 * (redis-streams.ts) can sit waiting for a delivery (every slot busy) for up to `push-timeout-ms`. Each
 * held entry is renewed at least every 3/8 of a lease. Returns the stop, which waits for a renewal under way.
 */
export function renewLeasesMeanwhile(leases: EntryLeases, leaseTimeoutMs: number, logger: PushLogger): () => Promise<void> {
  const everyMs = Math.max(10, Math.floor(leaseTimeoutMs / 4));
  let renewing: Promise<void> | undefined;
  const timer = setInterval(() => {
    renewing ??= leases
      .renew(everyMs / 2)
      .then((lost) => {
        // Not delivered here when their turn comes (redis-outcomes.ts checks again); in flight, too late.
        if (lost.length > 0) logger.warn({ entries: lost.length }, 'A2A push queue entries were taken over by another replica');
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'A2A push queue could not renew its entries’ leases'))
      .finally(() => (renewing = undefined));
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await renewing;
  };
}
