/**
 * The settings of the Redis Streams push queue (redis-streams.ts), from the `push-*` configuration, and
 * the defaults of those a caller may leave out.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisTarget } from '../../redis/connection.js';
import type { RetryPolicy } from './retry-policy.js';
import type { PushLogger } from './types.js';

export interface RedisStreamsQueueOptions {
  /** `push-redis-url`, falling back to `redis-url`. */
  url: RedisTarget;
  /** `push-stream`: entries `job=<json>`. */
  stream: string;
  /** `push-retry-key`: sorted set of jobs waiting for a retry, scored by due time (epoch ms). */
  retryKey: string;
  /** `push-dead-stream`: entries `job=<json> reason=<text>`. */
  deadStream: string;
  /** `push-consumer-group`, shared by every replica. */
  group: string;
  /** `push-consumer-name`; default `<hostname>-<pid>-<random>`, unique per process. */
  consumer?: string;
  /** `push-lease-timeout-ms`: an entry idle this long in another consumer's pending list is taken over. */
  leaseTimeoutMs: number;
  retry?: Partial<RetryPolicy>;
  /** Deliveries in flight at once (default 8, as the local-file queue); entries are fetched for free slots (and, every slot busy, to find another owner's: see `work`). */
  concurrency?: number;
  /**
   * Entries this replica may hold waiting behind their webhooks' deliveries or retries, all webhooks
   * together (default 50,000: ids only, some megabytes at most), plus one fetch (`concurrency` entries).
   * At the bound it reads no new entries until deliveries end; only an extreme backlog gets there. When
   * every entry held waits (nothing in flight) it fetches past the bound only what they may wait for:
   * stale entries (a crashed replica's), `concurrency` at a time every 250 ms, and, while what they wait
   * for is a retry brought back at the stream's end that no replica has read yet, new entries until it
   * is read (with it the entries queued before it came back). Entries are never released once fetched:
   * a released entry comes back stale a lease later and is fetched again, round after round.
   */
  maxWaitingEntries?: number;
  /** Upper bound of one blocking read, so due retries and stale leases are looked at regularly. */
  blockMs?: number;
  logger?: PushLogger;
}

export const DEFAULT_MAX_WAITING_ENTRIES = 50_000;

export const defaultConsumerName = (): string => `${hostname()}-${process.pid}-${randomBytes(6).toString('hex')}`;
