import type { z } from 'zod';
import { routeTakenByFacade } from '../gateway-routes.js';

interface FacadeSettings {
  bailian: { enabled: boolean; 'base-path': string };
  metrics: { enabled: boolean; path: string; port?: number | undefined };
}

/**
 * `bailian.base-path` naming one of the gateway's own routes is refused at start: mounted first, the facade
 * would take that route from its surface (a GET of the 1.0 card answered 405) or lose its own to it, and
 * nothing would say so.
 */
export function checkFacadeBasePath(config: FacadeSettings, ctx: z.RefinementCtx): void {
  if (!config.bailian.enabled) return;
  const metricsPath = config.metrics.enabled && config.metrics.port === undefined ? config.metrics.path : undefined;
  const taken = routeTakenByFacade(config.bailian['base-path'], metricsPath);
  if (!taken) return;
  ctx.addIssue({
    code: 'custom',
    path: ['bailian', 'base-path'],
    message: `would put the Bailian facade on the gateway's own route ${taken}; choose a path of its own, e.g. /bailian`,
  });
}
