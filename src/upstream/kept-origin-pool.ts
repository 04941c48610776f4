import { EventEmitter } from 'node:events';
import { Pool, type Dispatcher } from 'undici';

/**
 * The events by which undici's Agent (7.x) drops an origin's pool. It counts the origin's open connections from its
 * pool's `connect` and `disconnect` events, by origin, and once the count is 0 (or a first connection failed) takes the
 * pool out and closes it gracefully. A connection destroyed while calls wait for it (a call that timed out on it, a
 * stream whose caller hung up) brings the count to 0 with those calls still queued: they go on in the dropped pool, on
 * a connection of its own that nothing counts, while the next call is given a new pool and a new connection, past
 * `upstream.connections`. The dropped pool's own later disconnect is then counted against its successor, which is
 * dropped in turn with its streams still running. (undici 8 stopped dropping a pool with calls queued:
 * nodejs/undici#5034.)
 */
const DROPPING_EVENTS: ReadonlySet<string | symbol> = new Set(['disconnect', 'connectionError']);

/**
 * An origin's pool that its Agent keeps for as long as the Agent lives, so the Agent's `connections` cap holds: the
 * Agent is not told of the connections it closes (DROPPING_EVENTS). The gateway reaches a handful of origins (its
 * agent's, the interfaces of its card) for as long as it runs: keeping each one's pool costs nothing.
 */
class KeptPool extends Pool {
  // undici's typings name each event's arguments; its pools emit as any EventEmitter does.
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    return DROPPING_EVENTS.has(event) ? false : EventEmitter.prototype.emit.call(this, event, ...args);
  }
}

/** An Agent's `factory`: each origin's pool is one the Agent never drops (KeptPool). */
export const keptOriginPool = (origin: string | URL, options: object): Dispatcher => new KeptPool(origin, options);
