import type { Handler, Hono, MiddlewareHandler } from 'hono';
import type { Dispatcher } from 'undici';
import type { ReferenceScope } from '../../core/task-scope.js';
import { A2AError, GATEWAY_FAILURES, retryAfterHeader } from '../../model/index.js';
import { getJson } from '../../upstream/card-fetch.js';
import { AGENT_OWN_ROUTES } from '../../gateway-routes.js';
import type { GatewayEnv } from '../shared/env.js';
import { noteLog } from '../shared/log-fields.js';

// iac-code's own routes (src/gateway-routes.ts). Not A2A, so no A2A-Version is needed.

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
 * The query parameters each route takes, as iac-code reads them (its `app.py`: `contextId`, `taskId`,
 * `afterSequence`; newer servers also `includeSnapshot` and `lean`). Only these go to the agent, one value
 * each, rebuilt from what the gateway read: never the caller's query string as it came.
 */
const ROUTE_PARAMS: Record<(typeof AGENT_OWN_ROUTES)[number], readonly string[]> = {
  '/iac-code/readiness': [],
  '/iac-code/pipeline/state': ['contextId', 'taskId', 'afterSequence', 'includeSnapshot', 'lean'],
};

/** The parameters that name a task or a context: checked against the caller before anything is forwarded. */
const REFERENCES = ['taskId', 'contextId'] as const;

/** A reference given twice: the gateway would check one value and iac-code (Starlette: the last wins) read another. */
const AMBIGUOUS = 'taskId and contextId may each be given once';

/**
 * The query the agent gets, or undefined when a task or context reference is ambiguous. Of the other
 * parameters the last value goes on, the one iac-code would read.
 */
function forwardedQuery(
  query: URLSearchParams,
  names: readonly string[],
): { search: string; ref: { taskId?: string; contextId?: string } } | undefined {
  const ref: { taskId?: string; contextId?: string } = {};
  for (const name of REFERENCES) {
    const values = query.getAll(name);
    if (values.length > 1) return undefined;
    // Empty is absent, as iac-code reads it (`… or None`): named by nobody, checked for nobody, not forwarded.
    if (values[0]) ref[name] = values[0];
  }
  const out = new URLSearchParams();
  for (const name of names) {
    const value = (REFERENCES as readonly string[]).includes(name) ? ref[name as (typeof REFERENCES)[number]] : query.getAll(name).at(-1);
    if (value !== undefined) out.set(name, value);
  }
  const text = out.toString();
  return { search: text ? `?${text}` : '', ref };
}

/**
 * GET one of the agent's own routes on the upstream, with the route's own parameters (`ROUTE_PARAMS`) and
 * the gateway's upstream credentials (never the caller's): the agent's JSON answer and status come back as
 * they are. A non-JSON answer (an agent without these routes) is the gateway's 404 or 502, a transport
 * failure a 502; nothing of the upstream's address or error text reaches the caller.
 */
function agentRouteHandler(upstream: AgentRoutesUpstream, path: (typeof AGENT_OWN_ROUTES)[number], scope?: ReferenceScope): Handler<GatewayEnv> {
  const base = upstream.url.replace(/\/+$/, '');
  return async (c) => {
    noteLog(c, { surface: 'rest', method: 'agent-route' });
    const forwarded = forwardedQuery(new URL(c.req.url).searchParams, ROUTE_PARAMS[path]);
    // Refused before the scope is asked: the answer depends on the query's shape alone, never on whose ids they are.
    if (!forwarded) return json({ error: AMBIGUOUS }, 400);
    // The agent scopes nothing to the caller (it sees the gateway's one credential): another caller's
    // task or context is not found here, as on every A2A method.
    const { ref, search } = forwarded;
    if (scope && (ref.taskId || ref.contextId) && !(await scope(ref, c.get('principal') ?? ''))) return json({ error: 'Not Found' }, 404);
    try {
      const answer = await getJson(`${base}${path}${search}`, {
        dispatcher: upstream.dispatcher,
        headers: upstream.headers,
        timeoutMs: upstream.timeoutMs,
        signal: c.req.raw.signal,
      });
      if (answer.body !== undefined) return json(answer.body, answer.status);
      return answer.status === 404 ? json({ error: 'Not Found' }, 404) : json({ error: 'The upstream agent gave no JSON answer' }, 502);
    } catch (error) {
      // Every connection to the agent held (upstream.connections): the agent is up, and the route is refused for now, as an A2A call is.
      if (error instanceof A2AError && error.message === GATEWAY_FAILURES.upstreamBusy) {
        const busy = json({ error: GATEWAY_FAILURES.upstreamBusy }, 503);
        for (const [name, value] of Object.entries(retryAfterHeader(error))) busy.headers.set(name, value);
        return busy;
      }
      return json({ error: 'The upstream agent is not reachable' }, 502);
    }
  };
}

/**
 * Serves the agent's own routes through the gateway, behind `auth` like every 1.0 route; a `taskId` or
 * `contextId` in the query must be given once, not empty, and be the caller's by `scope` (the task scope's rule).
 */
export function mountAgentRoutes(
  app: Hono<GatewayEnv>,
  upstream: AgentRoutesUpstream,
  auth: MiddlewareHandler<GatewayEnv>,
  scope?: ReferenceScope,
): void {
  for (const path of AGENT_OWN_ROUTES) app.get(path, auth, agentRouteHandler(upstream, path, scope));
}
