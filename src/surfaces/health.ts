import type { Hono } from 'hono';
import type { CardSource } from '../core/card-source.js';
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
export function mountHealth(app: Hono<GatewayEnv>, cards: CardSource, storeReachable: () => boolean = () => true): void {
  app.get('/health', (c) => {
    noteLog(c, { surface: 'health' });
    return json('{"status":"healthy"}', 200);
  });
  app.get('/ready', (c) => {
    noteLog(c, { surface: 'health' });
    return cards.upstreamReachable() && storeReachable() ? json('{"status":"ready"}', 200) : json('{"status":"unavailable"}', 503);
  });
}
