/**
 * The gateway's routes, for the one check that needs them all: that the 0.2.5 facade, mounted under
 * `bailian.base-path`, takes none of them (config/facade-base-path.ts). Imports nothing, so that the config,
 * the log and the CLI may read the routes without pulling in the surfaces' code.
 */

/** The probes a load balancer asks, without credentials (surfaces/health.ts). */
export const HEALTH_PATH = '/health';
export const READY_PATH = '/ready';

/**
 * iac-code's own HTTP routes that its card and docs name: readiness, and the pipeline recovery state
 * its pipeline-events extension advertises as `stateEndpoint` (forwarded by surfaces/v1/agent-routes.ts).
 */
export const AGENT_OWN_ROUTES = ['/iac-code/readiness', '/iac-code/pipeline/state'] as const;

/** The A2A 1.0 agent card (surfaces/v1/card.ts). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** RFC 8615's prefix, the origin's own: the 1.0 card, the facade's root card, the card signing keys. */
const WELL_KNOWN = '/.well-known';

const REST_PATH = /^(?:\/[^/]+)?\/(?:message:send|message:stream|tasks(?:\/.*)?|extendedAgentCard)$/;

/**
 * Whether a path belongs to the 1.0 HTTP+JSON binding (optionally under a `/{tenant}` segment); the
 * handler itself then tells the routes apart (ids may contain `:`). Checked here rather than as Hono
 * route patterns: `/:tenant/message:send` is a pattern Hono's RegExpRouter refuses, and one such route
 * puts every request of the app on the slower TrieRouter.
 */
export const isRestPath = (pathname: string): boolean => REST_PATH.test(pathname);

/**
 * Whether a path is one the 1.0 surface serves behind its credentials: the HTTP+JSON binding's (a `/{tenant}` segment
 * may be the facade's base path's name), the agent's own routes, the 1.0 card. A facade under its base path leaves them.
 */
export const servedByV1Surface = (pathname: string): boolean =>
  isRestPath(pathname) || pathname === AGENT_CARD_PATH || (AGENT_OWN_ROUTES as readonly string[]).includes(pathname);

/**
 * A route's answer to the methods it does not take, whoever asks (before any credentials: "Unauthorized" would tell
 * a caller with the right key that its key is wrong): 405 with `Allow`. Registered after the route's own handlers,
 * or before them, alike: the methods it takes pass on. No CORS is configured, so a preflight (OPTIONS) is one of them.
 */
export function otherMethodsRefused(
  allowed: readonly string[],
): (c: { req: { method: string } }, next: () => Promise<void>) => Promise<Response | void> {
  const allow = allowed.join(', ');
  return async (c, next) => {
    if (allowed.includes(c.req.method)) return next();
    return Response.json({ error: 'Method Not Allowed' }, { status: 405, headers: { allow } });
  };
}

/** `bailian.base-path` without trailing slashes: `/`, or e.g. `/bailian`. */
export function facadeBasePath(bailian: { 'base-path': string }): string {
  const trimmed = bailian['base-path'].replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

const FIXED_ROUTES: ReadonlyMap<string, string> = new Map([
  [HEALTH_PATH, 'the health probe'],
  [READY_PATH, 'the readiness probe'],
  ...AGENT_OWN_ROUTES.map((path): [string, string] => [path, "the agent's own route the 1.0 surface forwards"]),
]);

/**
 * Which of the gateway's own routes the facade would take (or be taken by) under `basePath`, as the operator
 * reads it; undefined when none. The facade answers its base and `{base}/stream` for every method (POST its
 * JSON-RPC, others 405) and serves its card under `{base}/.well-known/`. `/` is the shared JSON-RPC endpoint,
 * by design. `metricsPath`: the scrape's route, when it is served on the main port.
 */
export function routeTakenByFacade(basePath: string, metricsPath?: string): string | undefined {
  const base = facadeBasePath({ 'base-path': basePath });
  if (base === '/') return undefined;
  if (base === WELL_KNOWN || base.startsWith(`${WELL_KNOWN}/`)) return `${WELL_KNOWN}/ (the agent cards and the card signing keys)`;
  for (const path of [base, `${base}/stream`]) {
    if (isRestPath(path)) return `${path} (the A2A 1.0 HTTP+JSON binding)`;
    if (path === metricsPath) return `${path} (the metrics scrape, metrics.path)`;
    const fixed = FIXED_ROUTES.get(path);
    if (fixed) return `${path} (${fixed})`;
  }
  return undefined;
}
