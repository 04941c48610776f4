import type { Hono } from 'hono';
import { requireCredentials } from '../shared/auth.js';
import type { GatewayEnv } from '../shared/env.js';
import { mountAgentRoutes } from './agent-routes.js';
import { AGENT_CARD_PATH, agentCardHandler } from './card.js';
import type { V1SurfaceDeps } from './deps.js';
import { isRestPath, restHandler } from './rest.js';

export { createV1Dialect } from './jsonrpc-dialect.js';
export { AGENT_CARD_PATH, servedCard } from './card.js';
export { isRestPath } from './rest.js';
export type { V1SurfaceDeps, V1SurfaceOptions } from './deps.js';
export type { AgentRoutesUpstream } from './agent-routes.js';

/**
 * Registers the A2A 1.0 card (`/.well-known/agent-card.json`), the HTTP+JSON routes (including
 * `GET /extendedAgentCard` and the `/{tenant}` variants) and the agent's own routes (agent-routes.ts),
 * each behind the gateway's credentials.
 * The JSON-RPC `POST /` is not registered here: the app composer mounts `jsonRpcEndpoint` with this
 * surface's `createV1Dialect(deps)` next to the 0.2.5 dialect, and must guard it with `requireCredentials`.
 */
export function mountV1Surface(app: Hono<GatewayEnv>, deps: V1SurfaceDeps): void {
  const auth = requireCredentials(deps.options.auth);
  app.get(AGENT_CARD_PATH, auth, agentCardHandler(deps.cards, deps.options, deps.signer));
  if (deps.agentRoutes) mountAgentRoutes(app, deps.agentRoutes, auth, deps.agentRouteScope);
  const rest = restHandler(deps);
  // Every method: one the binding's paths do not take is its 405 (with `Allow`), not the app's 404.
  app.all('/*', async (c, next) => {
    if (!isRestPath(c.req.path)) return next();
    let answer: Response | void = undefined;
    const refused = await auth(c, async () => {
      answer = (await rest(c, next)) as Response | void;
    });
    return refused ?? answer;
  });
}
