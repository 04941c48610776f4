import type { Hono } from 'hono';
import type { GatewayEnv } from '../shared/env.js';
import type { JsonRpcDialect } from '../shared/jsonrpc.js';
import { jsonRpcEndpoint } from '../shared/jsonrpc-endpoint.js';
import { V1_METHODS_ELSEWHERE } from '../shared/v1-methods-elsewhere.js';
import { otherMethodsRefused } from '../../gateway-routes.js';
import { guardedByFacadeKey, requireFacadeKey } from './auth.js';
import type { CallerAuth } from '../shared/auth.js';
import { EXTENDED_CARD_PATH, extendedFacadeCardHandler, facadeCardHandler } from './card.js';
import { underBase, type V025FacadeDeps } from './deps.js';
import { createV025Dialect } from './dialect.js';
import { ImageFetchSlots } from './turn/image-urls.js';
import { endpointPaths, unservedUnderBase } from './unserved-paths.js';
import { withFields } from '../../model/index.js';

export { createV025Dialect } from './dialect.js';
export { facadeCard } from './card.js';
export { v025ErrorAnswer } from './errors.js';
export { FACADE_KEY_HEADER, facadeCaller, facadeKeys } from './auth.js';
export { facadeBasePath } from '../../gateway-routes.js';
export { endpointPaths } from './unserved-paths.js';
export { facadeUrl, type FacadePassThrough, type V025FacadeDeps, type V025FacadeOptions, type V025Relay } from './deps.js';

export const FACADE_CARD_PATH = '/.well-known/agent.json';

/**
 * Mounts the A2A 0.2.5 facade (Bailian) when `bailian.enabled`, under `bailian.base-path`:
 *   GET  {base}/.well-known/agent.json    the facade card (open, no key)
 *   POST {base}/stream                    JSON-RPC, where Bailian posts message/stream
 *   POST {base}                           JSON-RPC (base other than `/`)
 *   GET  {base}/agent/authenticatedExtendedCard   0.2.5's extended card (behind the key)
 * With a base other than `/`, the card is also served at `{base}/.well-known/agent-card.json` and at
 * the root `/.well-known/agent.json` (where 0.2.5 discovery looks), and the extended card at the root
 * too (the spec's prose puts it at `{url}/../`, its example at `{url}/`). With base `/`, `POST /` is the
 * endpoint shared with the 1.0 surface: the returned dialect (already behind the facade key) must be
 * added to it next to the 1.0 dialect, whose credentials (`v1Auth`) its gate tells from its own key there.
 * Register this before any catch-all middleware.
 */
export function mountV025Facade(app: Hono<GatewayEnv>, facadeDeps: V025FacadeDeps, v1Auth?: CallerAuth): JsonRpcDialect | undefined {
  const { bailian, basePath: base, maxBodyBytes } = facadeDeps.options;
  if (!bailian.enabled) return undefined;
  // One bound of the URL image fetches per facade, shared by all its callers.
  const deps = withFields(facadeDeps, { imageSlots: new ImageFetchSlots(bailian['image-urls']['max-concurrent']) });
  const card = facadeCardHandler(deps);
  const dialect = createV025Dialect(deps);
  const auth = requireFacadeKey(bailian);
  // A 1.0 caller at the facade's endpoints is told where 1.0 is served.
  // Its paths serve the facade alone: a request refused before its method is known is still the facade's (`v025`),
  // answered as the method Bailian posts there (an unreadable body at /stream: one SSE frame).
  const endpoint = (untoldMethod: string) =>
    jsonRpcEndpoint([dialect], { maxBodyBytes, servedElsewhere: [V1_METHODS_ELSEWHERE], surface: 'v025', untoldMethod });
  const cardPaths = [underBase(base, FACADE_CARD_PATH)];
  const streamPaths = endpointPaths(underBase(base, '/stream'));
  for (const path of streamPaths) app.post(path, auth, endpoint('message/stream'));
  if (base !== '/') {
    cardPaths.push(underBase(base, '/.well-known/agent-card.json'), FACADE_CARD_PATH);
    for (const path of endpointPaths(base)) app.post(path, auth, endpoint('message/send'));
  }
  for (const path of cardPaths) app.get(path, card);
  const extendedCardPaths = base === '/' ? [EXTENDED_CARD_PATH] : [underBase(base, EXTENDED_CARD_PATH), EXTENDED_CARD_PATH];
  const extendedCard = extendedFacadeCardHandler(deps);
  for (const path of extendedCardPaths) app.get(path, auth, extendedCard);
  // Before any auth. `POST /`, shared with the 1.0 surface, is the app's (gateway-app.ts).
  for (const path of base === '/' ? streamPaths : [...streamPaths, ...endpointPaths(base)]) app.all(path, otherMethodsRefused(['POST']));
  for (const path of [...cardPaths, ...extendedCardPaths]) app.all(path, otherMethodsRefused(['GET', 'HEAD']));
  if (base === '/') return guardedByFacadeKey(dialect, bailian, { v1Auth, lenientVersion: deps.options.lenientVersion });
  app.all(underBase(base, '/*'), unservedUnderBase(base, cardPaths[0]!, deps.profile));
  return undefined;
}
