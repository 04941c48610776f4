import type { Handler, Hono, MiddlewareHandler } from 'hono';
import type { Dispatcher } from 'undici';
import type { ReferenceScope } from '../../core/task-scope.js';
import { getJson } from '../../upstream/card-fetch.js';
import type { GatewayEnv } from '../shared/env.js';
import { noteLog } from '../shared/log-fields.js';

/**
 * iac-code's own HTTP routes that its card and docs name: readiness, and the pipeline recovery state
 * its pipeline-events extension advertises as `stateEndpoint`. Not A2A, so no A2A-Version is needed.
 */
export const AGENT_OWN_ROUTES = ['/iac-code/readiness', '/iac-code/pipeline/state'] as const;

/** Where the agent's own routes are reached: its base URL, the pool of the upstream connection, and how it is asked. */
export interface AgentRoutesUpstream {
  url: string;
  dispatcher: Dispatcher;
  /** The gateway's upstream credentials (`upstream.auth`) as request headers. */
  headers: Record<string, string>;
  /** `upstream.request-timeout-ms`. */
  timeoutMs: number;
}

const json = (body: unknown, status: number): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });

/**
 * GET one of the agent's own routes on the upstream, query string and all, with the gateway's
 * upstream credentials (never the caller's): the agent's JSON answer and status come back as they
 * are. A non-JSON answer (an agent without these routes) is the gateway's 404 or 502, a transport
 * failure a 502; nothing of the upstream's address or error text reaches the caller.
 */
function agentRouteHandler(upstream: AgentRoutesUpstream, scope?: ReferenceScope): Handler<GatewayEnv> {
  const base = upstream.url.replace(/\/+$/, '');
  return async (c) => {
    noteLog(c, { surface: 'rest', method: 'agent-route' });
    const url = new URL(c.req.url);
    // The agent scopes nothing to the caller (it sees the gateway's one credential): another caller's
    // task or context is not found here, as on every A2A method.
    const ref = { taskId: url.searchParams.get('taskId') || undefined, contextId: url.searchParams.get('contextId') || undefined };
    if (scope && (ref.taskId || ref.contextId) && !(await scope(ref, c.get('principal') ?? ''))) return json({ error: 'Not Found' }, 404);
    try {
      const answer = await getJson(`${base}${url.pathname}${url.search}`, {
        dispatcher: upstream.dispatcher,
        headers: upstream.headers,
        timeoutMs: upstream.timeoutMs,
        signal: c.req.raw.signal,
      });
      if (answer.body !== undefined) return json(answer.body, answer.status);
      return answer.status === 404 ? json({ error: 'Not Found' }, 404) : json({ error: 'The upstream agent gave no JSON answer' }, 502);
    } catch {
      return json({ error: 'The upstream agent is not reachable' }, 502);
    }
  };
}

/**
 * Serves the agent's own routes through the gateway, behind `auth` like every 1.0 route; a `taskId` or
 * `contextId` in the query must be the caller's by `scope` (the task scope's rule).
 */
export function mountAgentRoutes(
  app: Hono<GatewayEnv>,
  upstream: AgentRoutesUpstream,
  auth: MiddlewareHandler<GatewayEnv>,
  scope?: ReferenceScope,
): void {
  const handler = agentRouteHandler(upstream, scope);
  for (const path of AGENT_OWN_ROUTES) app.get(path, auth, handler);
}
