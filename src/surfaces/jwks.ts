import type { Hono } from 'hono';
import { JWKS_PATH, type CardSigner } from '../signing/card-signer.js';
import { cacheableJson } from './shared/cacheable-json.js';
import type { GatewayEnv } from './shared/env.js';
import { noteLog } from './shared/log-fields.js';

/** `GET /.well-known/jwks.json`: the public keys of `signing.keys` (retired ones included), cacheable. */
export function mountJwks(app: Hono<GatewayEnv>, signer: CardSigner): void {
  const since = new Date();
  app.get(JWKS_PATH, (c) => {
    noteLog(c, { surface: 'card' });
    return cacheableJson(c.req.raw, signer.jwks(), since);
  });
}
