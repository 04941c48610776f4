import type { Logger } from 'pino';
import { A2AError, type AgentCard } from '../model/index.js';
import type { CardSnapshot, CardSource } from './card-source.js';
import { settlesWithin } from '../settles-within.js';
import { failureCause } from '../upstream/failure-cause.js';

/**
 * How long start() waits for the first fetch. An upstream that takes the connection and never answers
 * would hold the start (and /health) for `headers-timeout-ms`; past this wait the fetch goes on in the
 * background, /ready answering 503 until it succeeds, as after a refused connection.
 */
export const FIRST_FETCH_WAIT_MS = 2_000;

export interface CardFetcher {
  fetchCard(signal?: AbortSignal): Promise<AgentCard>;
}

export interface CardRefresherOptions {
  /** Background refresh period; 0 disables background refreshes (start() still fetches once). */
  intervalMs: number;
  /**
   * First retry after a failed refresh; each further failure doubles it, up to `intervalMs`. So `/ready`
   * and the cards come back within seconds of the upstream starting, without hammering one that stays down.
   */
  retryMinMs?: number;
  /** How long start() waits for the first fetch (default FIRST_FETCH_WAIT_MS); it goes on in the background past that. */
  startWaitMs?: number;
  logger?: Logger;
}

export type CardRefresher = CardSource & {
  /**
   * First fetch (never rejects: a failure is recorded as unreachable) and the background timer. Resolves
   * once that fetch ends or `startWaitMs` is over, whichever comes first: the timer starts after the fetch.
   */
  start(): Promise<void>;
  stop(): void;
  /** Fetch now; concurrent calls share one fetch. */
  refreshNow(): Promise<void>;
};

/**
 * Keeps the upstream card fresh in the background so no request ever waits for it. A failed refresh
 * keeps serving the last good card and only flips the reachability flag.
 */
export function createCardRefresher(source: CardFetcher, options: CardRefresherOptions): CardRefresher {
  const listeners: Array<(snapshot: CardSnapshot) => void> = [];
  let snapshot: CardSnapshot | undefined;
  let snapshotJson: string | undefined;
  let reachable = false;
  let refusedCredentials = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let inFlight: Promise<void> | undefined;
  let stopped = false;
  let attempted = false;
  let abort = new AbortController();

  function publish(card: AgentCard): void {
    const json = JSON.stringify(card);
    const changed = json !== snapshotJson;
    snapshot = { card, fetchedAt: new Date() };
    snapshotJson = json;
    if (!changed) return;
    for (const listener of listeners) {
      try {
        listener(snapshot);
      } catch (error) {
        options.logger?.error({ err: error }, 'agent card change listener failed');
      }
    }
  }

  async function refresh(): Promise<void> {
    try {
      const card = await source.fetchCard(abort.signal);
      if (stopped) return;
      if (!reachable) options.logger?.info('upstream agent card fetched');
      reachable = true;
      refusedCredentials = false;
      failures = 0;
      publish(card);
    } catch (error) {
      if (stopped) return;
      // Warn once per outage, not on every tick of it.
      const level = reachable || !attempted ? 'warn' : 'debug';
      const refused = error instanceof A2AError && (error.agentHttpStatus === 401 || error.agentHttpStatus === 403) ? error : undefined;
      refusedCredentials = refused !== undefined;
      // Why, as a request line of the same outage says it (ECONNREFUSED, DNS, TLS, the agent's words on a 401/403), scrubbed alike.
      const detail = error instanceof A2AError && error.cause !== undefined ? failureCause(error) : {};
      options.logger?.[level]({ err: error instanceof Error ? error.message : String(error), ...detail }, 'upstream agent card refresh failed');
      reachable = false;
      failures++;
    } finally {
      attempted = true;
    }
  }

  function refreshNow(): Promise<void> {
    inFlight ??= refresh().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  /** The wait before the next background refresh: the interval, or the backoff while failing. */
  function nextDelay(): number {
    if (failures === 0) return options.intervalMs;
    const first = Math.min(options.retryMinMs ?? 1_000, options.intervalMs);
    return Math.min(first * 2 ** (failures - 1), options.intervalMs);
  }

  function scheduleNext(): void {
    if (stopped || options.intervalMs <= 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void refreshNow().then(scheduleNext);
    }, nextDelay());
    timer.unref();
  }

  return {
    current: () => snapshot,
    upstreamReachable: () => reachable,
    upstreamRefusedCredentials: () => !reachable && refusedCredentials,
    onChange(listener) {
      listeners.push(listener);
    },
    refreshNow,
    async start() {
      stopped = false;
      if (abort.signal.aborted) abort = new AbortController();
      const first = refreshNow().then(() => {
        if (!timer) scheduleNext();
      });
      const waitMs = options.startWaitMs ?? FIRST_FETCH_WAIT_MS;
      if (!(await settlesWithin(first, waitMs))) {
        options.logger?.warn({ waitMs }, 'upstream agent card not fetched yet; the gateway starts without it (not ready until it is)');
      }
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      abort.abort();
    },
  };
}
