import type { Context, Hono } from 'hono';
import type { CardSource } from '../core/card-source.js';
import { storesNotAnswering } from '../observability/redis-answering.js';
import { REDIS_WARN_EVERY_MS } from '../observability/redis-errors.js';
import { HEALTH_PATH, READY_PATH } from '../gateway-routes.js';
import type { GatewayEnv } from './shared/env.js';
import { noteLog } from './shared/log-fields.js';

const json = (body: string, status: number): Response =>
  new Response(body, { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });

/**
 * Liveness and readiness probes. They stay open even when gateway auth is on (unlike iac-code's
 * `/health`): load balancers and orchestrators probe without credentials, and neither answer reveals
 * anything about the agent. `/health` never calls upstream; `/ready` reports the last card refresh and
 * whether the task store can be reached and takes writes (with `store: redis`, a replica without Redis
 * answers every call with -32603, and one whose Redis refuses writes answers without recording: either
 * way the balancer should send its callers elsewhere). `/health` reads state, not the network. `/ready` also
 * has the Redis connections every call depends on PINGed in the background (redis-answering.ts), at most once
 * a second each, and never waits for Redis: it is not ready while a PING went unanswered for longer than the
 * calls on that connection wait (redis-command-timeout-ms). A Redis that froze keeps its connections open, and
 * nothing else would tell until a call had failed; one that is slow but answers within that bound serves the
 * calls, and must not take every replica out of the balancer at once.
 */
export function mountHealth(
  app: Hono<GatewayEnv>,
  cards: CardSource,
  storeReachable: () => boolean = () => true,
  now: () => number = Date.now,
  redisNotAnswering: () => readonly string[] = storesNotAnswering,
): void {
  // What is wrong is told at warn, at most once per REDIS_WARN_EVERY_MS (turns to not ready within it are
  // counted in the next line's `leftOut`, and a warning held back is told once the time has passed, if it
  // still holds), and a change of what is wrong too; its coming right is told at info. Each failing probe's
  // request line stays at debug (log.ts).
  let toldCause: string | undefined;
  let toldAt = -Infinity;
  let leftOut = 0;
  let lastCause: string | undefined;
  function noteReadiness(c: Context<GatewayEnv>, upstreamReachable: boolean, storeUp: boolean, notAnswering: readonly string[]): void {
    const upstream = upstreamReachable ? undefined : cards.upstreamRefusedCredentials?.() ? 'refused' : 'unreachable';
    const ready = upstreamReachable && storeUp && notAnswering.length === 0;
    const cause = ready ? undefined : whyNotReady(upstream, storeUp, notAnswering);
    const turned = cause !== undefined && lastCause === undefined;
    lastCause = cause;
    const logger = c.get('logger') as GatewayEnv['Variables']['logger'] | undefined;
    if (cause === undefined) {
      if (toldCause !== undefined) logger?.info({ surface: 'health' }, '/ready: ready again');
      toldCause = undefined;
      return;
    }
    if (cause === toldCause) return;
    if (now() - toldAt < REDIS_WARN_EVERY_MS) {
      if (turned) leftOut++;
      return;
    }
    toldAt = now();
    toldCause = cause;
    logger?.warn(
      {
        surface: 'health',
        upstreamReachable,
        storeReachable: storeUp,
        ...(notAnswering.length > 0 ? { redisNotAnswering: notAnswering } : {}),
        ...(leftOut > 0 ? { leftOut } : {}),
      },
      `/ready: not ready, ${cause}`,
    );
    leftOut = 0;
  }

  app.get(HEALTH_PATH, (c) => {
    noteLog(c, { surface: 'health' });
    return json('{"status":"healthy"}', 200);
  });
  app.get(READY_PATH, (c) => {
    noteLog(c, { surface: 'health' });
    const upstreamReachable = cards.upstreamReachable();
    const storeUp = storeReachable();
    // Not asked when the store is known down already: its connections are not ready, or it refuses writes.
    const notAnswering = storeUp ? redisNotAnswering() : [];
    noteReadiness(c, upstreamReachable, storeUp, notAnswering);
    return upstreamReachable && storeUp && notAnswering.length === 0 ? json('{"status":"ready"}', 200) : json('{"status":"unavailable"}', 503);
  });
}

/** Why the upstream failed the last card refresh: out of reach, or it refused the gateway's credentials (`upstream.auth`). */
const UPSTREAM_NOT_READY = {
  unreachable: 'the upstream agent cannot be reached',
  refused: "the upstream agent refused the gateway's credentials (HTTP 401/403: check upstream.auth)",
} as const;

const whyNotReady = (upstream: keyof typeof UPSTREAM_NOT_READY | undefined, storeUp: boolean, notAnswering: readonly string[]): string =>
  [
    ...(upstream ? [UPSTREAM_NOT_READY[upstream]] : []),
    ...(storeUp ? [] : ['the task store cannot be reached or refuses writes (see the Redis warnings)']),
    ...(notAnswering.length > 0
      ? [
          `Redis does not answer (a PING unanswered for longer than redis-command-timeout-ms) for the ${notAnswering.join(', ')} store${notAnswering.length > 1 ? 's' : ''} (see the Redis warnings)`,
        ]
      : []),
  ].join(' and ');
