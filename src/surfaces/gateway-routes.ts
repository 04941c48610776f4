import { facadeBasePath } from './v025/deps.js';
import { isRestPath } from './v1/rest-status.js';

/**
 * The gateway's routes beside the 0.2.5 facade, for the one check that needs them all: that the facade,
 * mounted under `bailian.base-path`, takes none of them (config/facade-base-path.ts). Kept free of the
 * surfaces' code so that the config may read it.
 */

/** The probes a load balancer asks, without credentials (health.ts). */
export const HEALTH_PATH = '/health';
export const READY_PATH = '/ready';

/**
 * iac-code's own HTTP routes that its card and docs name: readiness, and the pipeline recovery state
 * its pipeline-events extension advertises as `stateEndpoint` (forwarded by v1/agent-routes.ts).
 */
export const AGENT_OWN_ROUTES = ['/iac-code/readiness', '/iac-code/pipeline/state'] as const;

/** RFC 8615's prefix, the origin's own: the 1.0 card, the facade's root card, the card signing keys. */
const WELL_KNOWN = '/.well-known';

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
