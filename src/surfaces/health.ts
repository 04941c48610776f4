import type { Context, Hono } from 'hono';
import type { CardSource } from '../core/card-source.js';
import { REDIS_WARN_EVERY_MS } from '../observability/redis-errors.js';
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
 * way the balancer should send its callers elsewhere). Both read state, not the network.
 */
export function mountHealth(
  app: Hono<GatewayEnv>,
  cards: CardSource,
  storeReachable: () => boolean = () => true,
  now: () => number = Date.now,
): void {
  // A probe that turns from ready to not ready is told at warn (at most once per REDIS_WARN_EVERY_MS: one
  // that flaps is counted in the next line's `leftOut`), and its coming back at info; each failing probe
  // itself stays at debug (log.ts).
  let ready = true;
  let toldAt = -Infinity;
  let leftOut = 0;
  let told = false;
  function noteReadiness(c: Context<GatewayEnv>, upstreamReachable: boolean, storeUp: boolean): void {
    const isReady = upstreamReachable && storeUp;
    if (isReady === ready) return;
    ready = isReady;
    const logger = c.get('logger') as GatewayEnv['Variables']['logger'] | undefined;
    if (isReady) {
      if (told) logger?.info({ surface: 'health' }, '/ready: ready again');
      told = false;
    } else if (now() - toldAt < REDIS_WARN_EVERY_MS) {
      leftOut++;
    } else {
      toldAt = now();
      const why = [
        ...(upstreamReachable ? [] : ['the upstream agent cannot be reached']),
        ...(storeUp ? [] : ['the task store cannot be reached or refuses writes (see the Redis warnings)']),
      ].join(' and ');
      logger?.warn(
        { surface: 'health', upstreamReachable, storeReachable: storeUp, ...(leftOut > 0 ? { leftOut } : {}) },
        `/ready: not ready, ${why}`,
      );
      leftOut = 0;
      told = true;
    }
  }

  app.get('/health', (c) => {
    noteLog(c, { surface: 'health' });
    return json('{"status":"healthy"}', 200);
  });
  app.get('/ready', (c) => {
    noteLog(c, { surface: 'health' });
    const upstreamReachable = cards.upstreamReachable();
    const storeUp = storeReachable();
    noteReadiness(c, upstreamReachable, storeUp);
    return upstreamReachable && storeUp ? json('{"status":"ready"}', 200) : json('{"status":"unavailable"}', 503);
  });
}
